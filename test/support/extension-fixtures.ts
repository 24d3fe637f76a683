import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ZipFile } from 'yazl';
import { zipOf } from './gpd-fixtures';

/** The worked sample of `samples/acme`: its manifest and its raw CSV, as committed. */
const SAMPLE = join(__dirname, '..', '..', 'samples', 'acme');
export const sampleManifest = (): Record<string, unknown> & { mapping: Record<string, string> } =>
  JSON.parse(readFileSync(join(SAMPLE, 'extension.json'), 'utf8'));
export const sampleRawCsv = (): string => readFileSync(join(SAMPLE, 'raw', 'usage-202410.csv'), 'utf8');

export const extensionZip = (manifest: unknown = sampleManifest()): Promise<Buffer> =>
  zipOf({ 'extension.json': typeof manifest === 'string' ? manifest : JSON.stringify(manifest, null, 2) });
export const rawZip = (files: Record<string, string> = { 'usage-202410.csv': sampleRawCsv() }): Promise<Buffer> => zipOf(files);

/**
 * yazl (like yauzl) refuses unsafe names, so an unsafe archive is built with a harmless
 * placeholder name of the same length that is then overwritten in every header.
 */
export function renameEntry(zip: Buffer, placeholder: string, name: string): Buffer {
  if (placeholder.length !== name.length) throw new Error('names must have the same length');
  const copy = Buffer.from(zip);
  let at = copy.indexOf(placeholder);
  while (at !== -1) {
    copy.write(name, at, 'latin1');
    at = copy.indexOf(placeholder, at + 1);
  }
  return copy;
}

/** Makes the headers of one entry declare `size` uncompressed bytes, whatever it really holds. */
export function declareSize(zip: Buffer, entryName: string, size: number): Buffer {
  const copy = Buffer.from(zip);
  for (let at = copy.indexOf(entryName); at !== -1; at = copy.indexOf(entryName, at + 1)) {
    if (at >= 30 && copy.readUInt32LE(at - 30) === 0x04034b50) copy.writeUInt32LE(size, at - 30 + 22);
    if (at >= 46 && copy.readUInt32LE(at - 46) === 0x02014b50) copy.writeUInt32LE(size, at - 46 + 24);
  }
  return copy;
}

/** Entries of zeros: megabytes that deflate to kilobytes. */
export async function zerosZip(entries: Record<string, number>): Promise<Buffer> {
  const zip = new ZipFile();
  for (const [name, size] of Object.entries(entries)) zip.addBuffer(Buffer.alloc(size), name);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export const manyEntriesZip = (count: number): Promise<Buffer> =>
  zipOf(Object.fromEntries(Array.from({ length: count }, (_, index) => [`part-${index}.csv`, 'a\n1\n'])));
