import { Client } from 'minio';
import { ExtensionManifest } from '../manifest/extension-manifest';
import { compileFilePattern } from '../manifest/file-pattern';
import { listObjects, StoredObject } from '../store/stream-upload';
import { rawExpandedFolder } from '../tenant-keys';

/** Expanded raw files of the provider whose path, relative to its expanded folder, matches the manifest pattern. */
export async function matchingRawFiles(
  store: Client,
  bucket: string,
  tenantId: string,
  manifest: ExtensionManifest,
): Promise<StoredObject[]> {
  const folder = rawExpandedFolder(tenantId, manifest.providerCode);
  const pattern = compileFilePattern(manifest.input.filePattern);
  const found = await listObjects(store, bucket, folder);
  return found.filter((object) => pattern.test(object.key.slice(folder.length))).sort((a, b) => a.key.localeCompare(b.key));
}
