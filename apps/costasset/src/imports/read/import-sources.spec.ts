import { Readable } from 'node:stream';
import type { Client } from 'minio';
import type { CostassetEnvironment } from '../../costasset.environment';
import { TransientFault } from '../../jobs/faults';
import { PermanentJobError } from '../../jobs/job-handler';
import type { UploadPart } from '../../uploads/schemas/upload.schema';
import { ImportSources } from './import-sources';

/** The read stage tells a fault of the object store (retried) from a file that cannot be read (the import fails). */

const env = {
  S3_BUCKET: 'bucket',
  FOCUS_MAX_FILE_BYTES: 1024 * 1024,
  FOCUS_PARQUET_MEMORY_CAP_BYTES: 1024 * 1024,
  GPD_MAX_FILE_BYTES: 1024 * 1024,
} as CostassetEnvironment;
const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9000'), { code: 'ECONNREFUSED' });
const part = (format: UploadPart['format'], sizeBytes = 1000): UploadPart => ({
  name: `f.${format}`,
  objectKey: `k/f.${format}`,
  format,
  sizeBytes,
  rowsRead: 0,
  rowsWritten: 0,
  rowsRejected: 0,
});
const sourcesOver = (store: Partial<Record<keyof Client, unknown>>) => new ImportSources(store as unknown as Client, env);
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => Promise.reject(new Error('expected a failure')),
    (error: Error) => error,
  );

describe('ImportSources', () => {
  it('reports ECONNREFUSED while opening a Parquet file as the object store unreachable, not as an unreadable file', async () => {
    const sources = sourcesOver({ getPartialObject: jest.fn(async () => Promise.reject(refused())) });
    const error = await failure(sources.openFocusFile(part('parquet')));
    expect(error).toBeInstanceOf(TransientFault);
    expect(error).not.toBeInstanceOf(PermanentJobError);
    expect(error.message).toBe('object store unreachable: connect ECONNREFUSED 127.0.0.1:9000');
  });

  it('still fails a file that is not Parquet for good', async () => {
    const bytes = Buffer.from('plainly not a parquet file at all');
    const sources = sourcesOver({
      getPartialObject: jest.fn(async (_bucket: string, _key: string, offset: number, length: number) =>
        Readable.from([bytes.subarray(offset, offset + length)]),
      ),
    });
    const error = await failure(sources.openFocusFile(part('parquet', bytes.length)));
    expect(error).toBeInstanceOf(PermanentJobError);
    expect(error.message).toMatch(/^f\.parquet is not a readable Parquet file/);
  });

  it('fails the read (never hangs) when the CSV stream breaks mid-read, as a fault of the object store', async () => {
    const broken = async function* () {
      yield Buffer.from('BilledCost,BillingAccountId\r\n1,a\r\n');
      throw Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    };
    const sources = sourcesOver({ getObject: jest.fn(async () => Readable.from(broken())) });
    const read = async () => {
      const file = await sources.openFocusFile(part('csv'));
      for await (const _batch of file.batches);
    };
    const error = await failure(read());
    expect(error).toBeInstanceOf(TransientFault);
    expect(error.message).toBe('object store unreachable: read ECONNRESET');
  });

  it('keeps a gzip that does not decode a fault of the file', async () => {
    const sources = sourcesOver({ getObject: jest.fn(async () => Readable.from([Buffer.from('not gzip at all')])) });
    const error = await failure(sources.openFocusFile(part('csv.gz')));
    expect(error).toBeInstanceOf(PermanentJobError);
    expect(error.message).toContain('f.csv.gz is not a readable gzip file');
  });

  it('reports a stat or a zip read that cannot reach the store as the object store unreachable', async () => {
    const stat = await failure(sourcesOver({ statObject: jest.fn(async () => Promise.reject(refused())) }).statPart(part('csv')));
    expect(stat).toBeInstanceOf(TransientFault);
    const zip = await failure(
      sourcesOver({
        statObject: jest.fn(async () => ({ size: 100 })),
        getPartialObject: jest.fn(async () => Promise.reject(refused())),
      }).openGpdArchive({ objectKey: 'k/a.zip' }),
    );
    expect(zip).toBeInstanceOf(TransientFault);
    expect(zip.message).toBe('object store unreachable: connect ECONNREFUSED 127.0.0.1:9000');
  });
});
