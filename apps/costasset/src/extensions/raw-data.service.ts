import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Injectable, Logger } from '@nestjs/common';
import { Client } from 'minio';
import type { Entry } from 'yauzl';
import { Problems } from '@lib/core';
import { CostassetEnvironment } from '../costasset.environment';
import { openObjectZip, ZipArchive } from '../imports/read/object-zip';
import { BudgetExceededError, ByteBudget } from './archive/byte-budget';
import { isSafeEntryPath, isUnsafePathError } from './archive/entry-path';
import { ExpandedRawData, PresignedUpload } from './dto/extension-files.dto';
import { sizeRefusal } from '../object-store/upload-urls';
import { DeclaredUploads } from './store/declared-uploads';
import { storeUnavailable } from './store/presign';
import { listObjects, removeKeys, statOrNull, uploadStream } from './store/stream-upload';
import { rawUploadExpandedFolder, rawUploadKey, relativeToTenant } from './tenant-keys';

const pathRefused = (name: string) =>
  Problems.badRequest('ARCHIVE_PATH_REFUSED', `The archive holds an entry outside its own folder: ${JSON.stringify(name.slice(0, 200))}`);
const tooLarge = (detail: string) => Problems.payloadTooLarge('ARCHIVE_TOO_LARGE', detail);
const invalid = (detail: string) => Problems.badRequest('ARCHIVE_INVALID', detail);

/** Raw-data zips: pre-signed upload, and expansion inside the object store. */
@Injectable()
export class RawDataService {
  private readonly logger = new Logger('RawData');

  constructor(
    private readonly store: Client,
    private readonly env: CostassetEnvironment,
    private readonly declared: DeclaredUploads,
  ) {}

  /** The zip itself may not be larger than what it may expand to (RAW_MAX_EXPANDED_BYTES). */
  async presign(tenantId: string, providerCode: string, fileName: string, declaredBytes?: number): Promise<PresignedUpload> {
    if (declaredBytes !== undefined && declaredBytes > this.env.RAW_MAX_EXPANDED_BYTES)
      throw tooLarge(`The declared size ${declaredBytes} is over RAW_MAX_EXPANDED_BYTES (${this.env.RAW_MAX_EXPANDED_BYTES})`);
    const key = rawUploadKey(tenantId, providerCode, fileName);
    const signed = await this.declared.put(tenantId, key, declaredBytes);
    return { preSignedUrl: signed.url, key: relativeToTenant(tenantId, key), expiresAt: signed.expiresAt };
  }

  /**
   * Streams every file entry of the uploaded zip into `raw/<provider>/expanded/<Filename>/<entry path>`
   * (a folder per raw upload: a flow reads the files of one upload, never every file ever sent;
   * expanding the same file name again replaces its folder).
   * Names and the entry count are checked before anything is written; the expanded bytes are
   * counted as they flow, and the first byte over the limit stops the reading. On any refusal
   * the objects this call wrote are removed again.
   */
  async expand(tenantId: string, providerCode: string, fileName: string): Promise<ExpandedRawData> {
    const key = rawUploadKey(tenantId, providerCode, fileName);
    const stat = await statOrNull(this.store, this.env.S3_BUCKET, key).catch(() => {
      throw storeUnavailable();
    });
    if (!stat) throw Problems.notFound('RAW_DATA_NOT_FOUND', 'No such raw-data file; upload it through ObjectStoreInputHandler first');
    await this.checkSize(tenantId, key, stat.size);
    const zip = await openObjectZip(this.store, this.env.S3_BUCKET, key, stat.size).catch((error: Error) => {
      throw isUnsafePathError(error)
        ? pathRefused(error.message.replace(/^[^:]*: /, ''))
        : invalid(`The raw-data file is not a readable zip archive (${error.message})`);
    });
    try {
      const files = this.admit(zip.entries);
      const folder = rawUploadExpandedFolder(tenantId, providerCode, fileName);
      const previous = await listObjects(this.store, this.env.S3_BUCKET, folder).catch(() => {
        throw storeUnavailable();
      });
      const written = await this.write(zip, files, folder);
      const stale = previous.map((object) => object.key).filter((key) => !written.includes(key));
      await removeKeys(this.store, this.env.S3_BUCKET, stale).catch(() => {
        throw storeUnavailable();
      });
      return { results: 'ok', files: written.map((target) => relativeToTenant(tenantId, target)) };
    } finally {
      zip.close();
    }
  }

  /** Before the zip is opened: within RAW_MAX_EXPANDED_BYTES, and the size declared for its upload URL. */
  private async checkSize(tenantId: string, key: string, size: number): Promise<void> {
    const maxBytes = this.env.RAW_MAX_EXPANDED_BYTES;
    const refusal = sizeRefusal(size, {
      declaredBytes: await this.declared.declaredBytes(tenantId, key),
      maxBytes,
      limitName: 'RAW_MAX_EXPANDED_BYTES',
    });
    if (refusal && size > maxBytes) throw tooLarge(`The raw-data file ${refusal}`);
    if (refusal) throw Problems.badRequest('RAW_DATA_SIZE_MISMATCH', `The raw-data file ${refusal}`);
  }

  private admit(entries: Entry[]): Entry[] {
    const { RAW_MAX_ENTRIES, RAW_MAX_EXPANDED_BYTES } = this.env;
    if (entries.length > RAW_MAX_ENTRIES) throw tooLarge(`The archive holds ${entries.length} entries; the limit is ${RAW_MAX_ENTRIES}`);
    const unsafe = entries.find((entry) => !isSafeEntryPath(entry.fileName));
    if (unsafe) throw pathRefused(unsafe.fileName);
    const files = entries.filter((entry) => !entry.fileName.endsWith('/'));
    const declared = files.reduce((sum, entry) => sum + entry.uncompressedSize, 0);
    if (declared > RAW_MAX_EXPANDED_BYTES)
      throw tooLarge(`The archive expands to ${declared} bytes; the limit is ${RAW_MAX_EXPANDED_BYTES}`);
    return files;
  }

  private async write(zip: ZipArchive, files: Entry[], folder: string): Promise<string[]> {
    const budget = new ByteBudget(this.env.RAW_MAX_EXPANDED_BYTES);
    const written: string[] = [];
    let archiveFailed = false;
    try {
      for (const entry of files) {
        const target = `${folder}${entry.fileName}`;
        written.push(target);
        const source: Readable = await zip.open(entry).catch((error: Error) => {
          archiveFailed = true;
          throw error;
        });
        source.once('error', () => (archiveFailed = true));
        const meter = budget.meter();
        pipeline(source, meter).catch(() => undefined);
        await uploadStream(this.store, this.env.S3_BUCKET, target, meter);
      }
      return written;
    } catch (error) {
      await removeKeys(this.store, this.env.S3_BUCKET, written).catch((removal: Error) =>
        this.logger.error({ err: removal }, 'cannot remove partly expanded raw data'),
      );
      if (error instanceof BudgetExceededError) throw tooLarge(`The archive expands to more than ${error.limit} bytes`);
      if (archiveFailed) throw invalid(`The raw-data archive is corrupt (${(error as Error).message})`);
      this.logger.error({ err: error }, 'raw-data expansion failed');
      throw storeUnavailable();
    }
  }
}
