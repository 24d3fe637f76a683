import { Client } from 'minio';
import { ExtensionManifest } from '../../extensions/manifest/extension-manifest';
import { compileFilePattern } from '../../extensions/manifest/file-pattern';
import { listObjects, StoredObject } from '../../extensions/store/stream-upload';
import { rawExpandedFolder, rawUploadExpandedFolder } from '../../extensions/tenant-keys';

export interface RawInputs {
  /** The raw upload (notify `Filename`) whose expanded files these are. */
  rawFile: string;
  /** Its expanded folder; the manifest pattern matches paths relative to it. */
  folder: string;
  files: StoredObject[];
}

/**
 * The expanded files of one raw upload that match the manifest pattern: the upload named, or
 * else the one expanded most recently. Files of other uploads are never read, so a second raw
 * zip does not make a flow read the first one again.
 */
export async function matchingRawFiles(
  store: Client,
  bucket: string,
  tenantId: string,
  manifest: ExtensionManifest,
  rawFile?: string,
): Promise<RawInputs | undefined> {
  const chosen = rawFile ?? (await latestRawUpload(store, bucket, tenantId, manifest.providerCode));
  if (!chosen) return undefined;
  const folder = rawUploadExpandedFolder(tenantId, manifest.providerCode, chosen);
  const pattern = compileFilePattern(manifest.input.filePattern);
  const found = await listObjects(store, bucket, folder);
  const files = found.filter((object) => pattern.test(object.key.slice(folder.length))).sort((a, b) => a.key.localeCompare(b.key));
  return { rawFile: chosen, folder, files };
}

async function latestRawUpload(store: Client, bucket: string, tenantId: string, providerCode: string): Promise<string | undefined> {
  const root = rawExpandedFolder(tenantId, providerCode);
  const newest = new Map<string, number>();
  for (const object of await listObjects(store, bucket, root)) {
    const rest = object.key.slice(root.length);
    const at = rest.indexOf('/');
    if (at <= 0) continue;
    const upload = rest.slice(0, at);
    newest.set(upload, Math.max(newest.get(upload) ?? 0, new Date(object.lastModified).getTime()));
  }
  return [...newest.entries()].sort((a, b) => b[1] - a[1] || b[0].localeCompare(a[0]))[0]?.[0];
}
