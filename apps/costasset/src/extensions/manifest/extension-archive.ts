import { Client } from 'minio';
import { openObjectZip, readHead, ZipArchive } from '../../imports/read/object-zip';
import { CheckedManifest, checkManifest, MANIFEST_FILE } from './extension-manifest';

const MAX_MANIFEST_BYTES = 256 * 1024;

/** Reads `extension.json` from an extension zip in the object store (range reads, nothing else unpacked) and checks it. */
export async function readExtension(
  store: Client,
  bucket: string,
  key: string,
  size: number,
  providerCode: string,
  maxBytes: number,
): Promise<CheckedManifest> {
  if (size > maxBytes) return { errors: [{ message: `the archive is ${size} bytes; the limit is ${maxBytes}` }] };
  let zip: ZipArchive;
  try {
    zip = await openObjectZip(store, bucket, key, size);
  } catch (error) {
    return { errors: [{ message: `not a readable zip archive (${(error as Error).message})` }] };
  }
  try {
    const entry = zip.entries.find((candidate) => candidate.fileName === MANIFEST_FILE);
    if (!entry) return { errors: [{ path: MANIFEST_FILE, message: 'missing at the root of the archive' }] };
    if (entry.uncompressedSize > MAX_MANIFEST_BYTES)
      return { errors: [{ path: MANIFEST_FILE, message: `larger than ${MAX_MANIFEST_BYTES} bytes` }] };
    const text = await readHead(await zip.open(entry), MAX_MANIFEST_BYTES);
    return checkManifest(text.replace(/^\uFEFF/, ''), providerCode);
  } catch (error) {
    return { errors: [{ path: MANIFEST_FILE, message: `cannot be read (${(error as Error).message})` }] };
  } finally {
    zip.close();
  }
}
