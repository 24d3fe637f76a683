import request from 'supertest';
import { allLineItems, focusFile, importFocus } from '../support/focus';
import { Platform, startPlatform } from '../support/platform';

const CAP = 1024 * 1024;

/** FOCUS_PARQUET_MEMORY_CAP_BYTES: a Parquet row group too large to read fails its import cleanly, once, and keeps nothing. */
describe('costasset FOCUS Parquet memory cap', () => {
  let platform: Platform;
  let admin: string;

  beforeAll(async () => {
    platform = await startPlatform({ FOCUS_PARQUET_MEMORY_CAP_BYTES: String(CAP), JOBS_RETRY_DELAY_MS: '100' });
    admin = await platform.token({ sub: 'admin' });
  });
  afterAll(() => platform.close());

  it(
    'fails the import of a file whose row group is over the cap with a ' +
      'problem naming the file, the row group and the cap, and writes nothing',
    async () => {
      // 70,000 rows in one row group: each column chunk decodes to more than 1 MiB (16 bytes a value at least)
      const big = await focusFile(
        { version: '1.2', format: 'parquet', rows: 70_000, rowGroupSize: 70_000, providers: ['aws'], periods: ['202410'] },
        'one-group.parquet',
      );
      const small = await focusFile(
        { version: '1.2', format: 'parquet', rows: 200, providers: ['aws'], periods: ['202410'] },
        'small.parquet',
      );

      const refused = await importFocus(platform, admin, [small, big]);
      const problem = new RegExp(
        /^one-group\.parquet is too large to read: row group 0: .+ needs about \d+ bytes to read, /.source +
          /over the cap of 1048576 bytes \(FOCUS_PARQUET_MEMORY_CAP_BYTES\)$/.source,
      );
      expect(refused.job).toMatchObject({ status: 'failed', error: expect.stringMatching(problem), attempts: 1 });
      const record = await request(platform.costasset.url)
        .get(`/api/costasset/v1/focus/uploads/${refused.uploadId}`)
        .set('corelite-token', admin)
        .expect(200);
      expect(record.body).toMatchObject({ status: 'failed', rowsWritten: 0 });
      expect(record.body.errors).toEqual([{ file: 'one-group.parquet', line: 0, reason: expect.stringMatching(problem) }]);
      // the first file was read and written before the second failed: none of its rows stay
      expect(await allLineItems(platform, admin, { uploadRefId: refused.uploadId })).toEqual([]);

      const fits = await importFocus(platform, admin, [small]);
      expect(fits.job).toMatchObject({ status: 'succeeded', result: { rowsWritten: 200 } });
    },
  );
});
