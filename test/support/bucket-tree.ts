import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import type { ContainerClient } from '@azure/storage-blob';
import type { Client } from 'minio';
import { CostassetEnvironment } from '../../apps/costasset/src/costasset.environment';
import { createObjectStoreClient } from '../../apps/costasset/src/object-store/object-store.module';

/** Every file under `dir`, as `/`-separated paths relative to it, sorted. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort();
}

const keyOf = (prefix: string, relative: string) => {
  const folder = prefix.replace(/^\/+|\/+$/g, '');
  return folder ? `${folder}/${relative}` : relative;
};

/**
 * Uploads every file under `dir` (a tree of tools/focus's `--layout`, say) to `bucket`, each at its
 * path relative to `dir` under `prefix`; creates the bucket if missing. Answers the keys written.
 */
export async function uploadTreeToS3(client: Client, bucket: string, prefix: string, dir: string): Promise<string[]> {
  if (!(await client.bucketExists(bucket))) await client.makeBucket(bucket);
  const keys: string[] = [];
  for (const relative of filesUnder(dir)) {
    const key = keyOf(prefix, relative);
    await client.fPutObject(bucket, key, path.join(dir, relative));
    keys.push(key);
  }
  return keys;
}

/** The same into an Azure Blob container (created if missing); answers the blob names written. */
export async function uploadTreeToAzure(containerClient: ContainerClient, prefix: string, dir: string): Promise<string[]> {
  await containerClient.createIfNotExists();
  const names: string[] = [];
  for (const relative of filesUnder(dir)) {
    const name = keyOf(prefix, relative);
    await containerClient.getBlockBlobClient(name).uploadFile(path.join(dir, relative));
    names.push(name);
  }
  return names;
}

/** A client of the stack's S3 server, as the services make theirs (S3_* of the environment, the same defaults). */
export function stackS3Client(): Client {
  const defaults = new CostassetEnvironment();
  const { S3_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY, S3_REGION } = process.env;
  return createObjectStoreClient({
    S3_ENDPOINT: S3_ENDPOINT ?? defaults.S3_ENDPOINT,
    S3_ACCESS_KEY: S3_ACCESS_KEY ?? defaults.S3_ACCESS_KEY,
    S3_SECRET_KEY: S3_SECRET_KEY ?? defaults.S3_SECRET_KEY,
    S3_REGION: S3_REGION ?? defaults.S3_REGION,
  });
}
