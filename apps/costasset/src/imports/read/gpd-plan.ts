import { Readable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { Client } from 'minio';
import type { Entry } from 'yauzl';
import { rethrowTransient } from '../../jobs/faults';
import { PermanentJobError } from '../../jobs/job-handler';
import { SizeLimits, sizeRefusal } from '../../object-store/upload-urls';
import { missingColumns } from './gpd-columns';
import { GpdDataFile, METADATA_FILE, StructuralError, validateLayout } from './gpd-layout';
import { GpdMetadata, parseMetadata } from './gpd-metadata';
import { openObjectZip, readHead, ZipArchive } from './object-zip';

const HEAD_LIMIT = 64 * 1024;

/**
 * The uploaded zip, opened in the object store. Problems of the object itself are permanent: over
 * the limit, or not the size declared at submission (checked before the first byte is read).
 */
export class GpdArchive {
  private constructor(private readonly zip: ZipArchive) {}

  static async open(store: Client, bucket: string, key: string, limits: SizeLimits): Promise<GpdArchive> {
    const stat = await store.statObject(bucket, key).catch((error: { code?: string }) => {
      if (error.code === 'NotFound' || error.code === 'NoSuchKey')
        throw new PermanentJobError('the uploaded file is no longer in the object store');
      rethrowTransient('object store', error);
      throw error;
    });
    const refusal = sizeRefusal(stat.size, limits);
    if (refusal) throw new PermanentJobError(`the file ${refusal}`);
    try {
      return new GpdArchive(await openObjectZip(store, bucket, key, stat.size));
    } catch (error) {
      rethrowTransient('object store', error);
      throw new PermanentJobError(`the file is not a readable zip archive (${(error as Error).message})`);
    }
  }

  get entries(): Entry[] {
    return this.zip.entries;
  }

  open(entry: Entry): Promise<Readable> {
    return this.zip.open(entry);
  }

  close(): void {
    this.zip.close();
  }
}

export interface GpdPlan {
  metadata: GpdMetadata;
  files: { file: GpdDataFile; entry: Entry }[];
  /** Uncompressed bytes of the data files: the unit of job progress. */
  totalBytes: number;
}

const malformed = (errors: StructuralError[]) =>
  new PermanentJobError(
    `the archive is malformed: ${errors
      .map((error) => `${error.file} ${error.reason}`.trim())
      .slice(0, 3)
      .join('; ')}`,
    {
      errors: errors.slice(0, 100).map((error) => ({ file: error.file, line: 0, reason: error.reason })),
    },
  );

/** Everything checkable before the first row: layout, metadata, and the header of every CSV. */
export async function readPlan(archive: GpdArchive, providerName: string): Promise<GpdPlan> {
  const layout = validateLayout(archive.entries.map((entry) => entry.fileName));
  if (layout.errors.length > 0) throw malformed(layout.errors);
  const byName = new Map(archive.entries.map((entry) => [entry.fileName, entry]));

  const metadataEntry = byName.get(METADATA_FILE) as Entry;
  if (metadataEntry.uncompressedSize > HEAD_LIMIT) throw malformed([{ file: METADATA_FILE, reason: 'provider_metadata.yml is too large' }]);
  const metadata = parseMetadata(await readHead(await archive.open(metadataEntry), HEAD_LIMIT));
  if (typeof metadata === 'string') throw malformed([{ file: METADATA_FILE, reason: metadata }]);
  if (metadata.providerName.toLowerCase() !== providerName.toLowerCase()) {
    throw malformed([
      { file: METADATA_FILE, reason: `providerName "${metadata.providerName}" differs from the upload's provider "${providerName}"` },
    ]);
  }

  const errors: StructuralError[] = [];
  const files = layout.files.map((file) => ({ file, entry: byName.get(file.name) as Entry }));
  for (const { file, entry } of files) {
    const line = await readHead(await archive.open(entry), HEAD_LIMIT, true);
    let header: string[] = [];
    try {
      header = (parse(line, { bom: true }) as string[][])[0] ?? [];
    } catch {
      errors.push({ file: file.name, reason: 'the header row is not valid CSV' });
      continue;
    }
    const missing = missingColumns(file.kind, header);
    if (missing.length > 0) errors.push({ file: file.name, reason: `missing required column(s): ${missing.join(', ')}` });
  }
  if (errors.length > 0) throw malformed(errors);
  return { metadata, files, totalBytes: files.reduce((sum, { entry }) => sum + entry.uncompressedSize, 0) };
}
