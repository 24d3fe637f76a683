import { createReadStream } from 'node:fs';
import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Client } from 'minio';
import { ZipFile } from 'yazl';
import { csvRecord } from '@lib/csv';
import { METADATA_FILE } from '../read/gpd-layout';
import { ByteBudget } from '../../extensions/archive/byte-budget';
import { uploadStream } from '../../extensions/store/stream-upload';
import { Placement } from './gpd-placement';

const FLUSH_BYTES = 256 * 1024;

interface CostFile {
  entryName: string;
  path: string;
  pending: string[];
  pendingBytes: number;
}

/**
 * Builds a GPD zip from mapped rows arriving in any order. Rows are appended to one local
 * temporary CSV per (period, billing account), since a zip entry must be written whole; the
 * zip is then streamed from those files straight into the object store.
 */
export class GpdAssembler {
  private readonly files = new Map<string, CostFile>();

  private constructor(
    private readonly directory: string,
    private readonly columns: string[],
    private readonly maxFiles: number,
  ) {}

  static async create(columns: string[], maxFiles: number): Promise<GpdAssembler> {
    return new GpdAssembler(await mkdtemp(join(tmpdir(), 'extension-flow-')), columns, maxFiles);
  }

  get fileCount(): number {
    return this.files.size;
  }

  /** Answers a reason when the row cannot be taken (too many account folders). */
  async add(placement: Placement): Promise<string | undefined> {
    let file = this.files.get(placement.entryName);
    if (!file) {
      if (this.files.size >= this.maxFiles) return `more than ${this.maxFiles} (period, billing account) pairs`;
      file = {
        entryName: placement.entryName,
        path: join(this.directory, `${this.files.size}.csv`),
        pending: [csvRecord(this.columns, 'product')],
        pendingBytes: 0,
      };
      this.files.set(placement.entryName, file);
    }
    const line = csvRecord(
      this.columns.map((column) => placement.cells[column] ?? ''),
      'product',
    );
    file.pending.push(line);
    file.pendingBytes += line.length;
    if (file.pendingBytes >= FLUSH_BYTES) await this.flush(file);
    return undefined;
  }

  /** Streams the zip into the store; answers its size. Fails once it passes `maxBytes`. */
  async upload(
    store: Client,
    bucket: string,
    key: string,
    metadata: { providerName: string; providerCode: string; currency: string },
    options: { maxBytes: number; onPart?: () => Promise<void> },
  ): Promise<number> {
    for (const file of this.files.values()) await this.flush(file);
    const zip = new ZipFile();
    zip.addBuffer(
      Buffer.from(
        `providerName: ${JSON.stringify(metadata.providerName)}\nproviderCode: ` +
          `${JSON.stringify(metadata.providerCode)}\ncurrency: ${metadata.currency}\n`,
      ),
      METADATA_FILE,
    );
    for (const file of [...this.files.values()].sort((a, b) => a.entryName.localeCompare(b.entryName)))
      zip.addReadStream(createReadStream(file.path), file.entryName);
    zip.end();
    const meter = new ByteBudget(options.maxBytes).meter();
    pipeline(zip.outputStream, meter).catch(() => undefined);
    return uploadStream(store, bucket, key, meter, { onPart: options.onPart });
  }

  async dispose(): Promise<void> {
    await rm(this.directory, { recursive: true, force: true });
  }

  private async flush(file: CostFile): Promise<void> {
    if (file.pending.length === 0) return;
    const text = file.pending.join('');
    file.pending = [];
    file.pendingBytes = 0;
    await appendFile(file.path, text, 'utf8');
  }
}
