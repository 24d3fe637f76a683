import { Readable } from 'node:stream';
import { Client } from 'minio';

/** S3 needs every part but the last to hold at least 5 MiB. */
export const PART_BYTES = 8 * 1024 * 1024;

/**
 * Uploads a stream of unknown length holding at most one part in memory: one PUT when it ends
 * within the first part, a multipart upload otherwise. The minio client's own stream upload
 * is not used because it buffers parts of up to ~550 MB for an unknown length and first lists
 * the bucket's incomplete uploads, which the local s3rver does not implement.
 */
export interface UploadOptions {
  partBytes?: number;
  /** Called after each part (a job uses it as its heartbeat). */
  onPart?: (bytesSoFar: number) => Promise<void>;
}

export async function uploadStream(
  store: Client,
  bucket: string,
  key: string,
  source: Readable,
  options: UploadOptions = {},
): Promise<number> {
  const partBytes = options.partBytes ?? PART_BYTES;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let total = 0;
  let uploadId: string | undefined;
  const parts: { part: number; etag: string }[] = [];

  const sendPart = async () => {
    const payload = Buffer.concat(pending);
    pending = [];
    pendingBytes = 0;
    uploadId ??= await store.initiateNewMultipartUpload(bucket, key, {});
    const part = parts.length + 1;
    const { etag } = await store.uploadPart(
      { bucketName: bucket, objectName: key, uploadID: uploadId, partNumber: part, headers: { 'Content-Length': payload.length } },
      payload,
    );
    parts.push({ part, etag });
    await options.onPart?.(total);
  };

  try {
    for await (const chunk of source) {
      const buffer = chunk as Buffer;
      pending.push(buffer);
      pendingBytes += buffer.length;
      total += buffer.length;
      if (pendingBytes >= partBytes) await sendPart();
    }
    if (!uploadId) {
      await store.putObject(bucket, key, Buffer.concat(pending));
      return total;
    }
    if (pendingBytes > 0) await sendPart();
    await store.completeMultipartUpload(bucket, key, uploadId, parts);
    return total;
  } catch (error) {
    source.destroy();
    // Best effort: s3rver refuses the abort; real stores expire incomplete uploads by policy.
    if (uploadId) await store.abortMultipartUpload(bucket, key, uploadId).catch(() => undefined);
    throw error;
  }
}

/** `NotFound` / `NoSuchKey` → null; anything else is the store being unavailable. */
export async function statOrNull(store: Client, bucket: string, key: string): Promise<{ size: number; lastModified: Date } | null> {
  try {
    const stat = await store.statObject(bucket, key);
    return { size: stat.size, lastModified: stat.lastModified };
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'NotFound' || code === 'NoSuchKey') return null;
    throw error;
  }
}

export interface StoredObject {
  key: string;
  size: number;
  lastModified: Date;
}

export async function listObjects(store: Client, bucket: string, prefix: string): Promise<StoredObject[]> {
  const found: StoredObject[] = [];
  for await (const item of store.listObjectsV2(bucket, prefix, true)) {
    const { name, size, lastModified } = item as { name?: string; size: number; lastModified: Date };
    if (name) found.push({ key: name, size, lastModified });
  }
  return found;
}

/** One at a time: s3rver answers 500 to concurrent or multi-key deletes in one folder. */
export async function removeKeys(store: Client, bucket: string, keys: string[]): Promise<void> {
  for (const key of keys) await store.removeObject(bucket, key);
}
