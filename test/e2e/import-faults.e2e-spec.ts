import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import request from 'supertest';
import { startComponent, stopComponent } from '../../tools/stack';
import { costTotals, expectSameTotals, focusFile, GeneratedFocus, importFocus, startFocusImport } from '../support/focus';
import { waitForJob } from '../support/ingest';
import { eventually, Platform, startPlatform } from '../support/platform';
import { freePort, startStore, stopStore } from '../support/store-process';

/**
 * An import meets the faults an operator meets: the database gone for longer than the job's
 * attempts, the object store killed mid-import. Whatever fails, an import is all or nothing: it
 * ends with every row or with none, and says why.
 */
const profile = process.env.STACK_PROFILE ?? 'test';
const quiet = { profile, log: () => undefined };
const UPLOADS = '/api/costasset/v1/focus/uploads';
const BIG_ROWS = 60_000;

async function rowsRead(platform: Platform, token: string, jobId: string): Promise<number> {
  const job = await request(platform.costasset.url).get(`/api/costasset/v1/jobs/${jobId}`).set('corelite-token', token).expect(200);
  return job.body.progress?.rows ?? 0;
}

const byProvider = { groupBy: 'providerName' };

describe('imports under faults', () => {
  let big: GeneratedFocus;
  let small: GeneratedFocus;

  beforeAll(async () => {
    [big, small] = await Promise.all([
      focusFile({ version: '1.2', format: 'csv', rows: BIG_ROWS }, 'big.csv'),
      focusFile({ version: '1.2', format: 'csv', rows: 400 }, 'small.csv'),
    ]);
  }, 120_000);

  describe('the database stopped for longer than the attempts of the job', () => {
    let dataDir: string;
    let port: number;
    let store: ChildProcess;
    let platform: Platform;
    let admin: string;

    beforeAll(async () => {
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'e2e-import-faults-'));
      port = await freePort();
      store = await startStore(port, dataDir);
      platform = await startPlatform({
        MONGODB_URI: `mongodb://127.0.0.1:${port}/import_faults`,
        GPD_BATCH_SIZE: '500',
        JOBS_RETRY_DELAY_MS: '100',
        JOBS_ACK_WAIT_MS: '3000',
        JOBS_HEARTBEAT_DEADLINE_MS: '6000',
      });
      admin = await platform.token({ sub: 'admin' });
    }, 60_000);

    afterAll(async () => {
      await platform?.close().catch(() => undefined);
      if (store) await stopStore(store, 'SIGTERM');
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it('ends the import failed, keeping none of its rows in any total, within a minute of the store coming back', async () => {
      // the generated files hold rows the rules reject (their edges): the rest is written
      const before = await importFocus(platform, admin, [small]);
      expect(['succeeded', 'completed_with_errors']).toContain(before.job.status);
      const totalsBefore = await costTotals(platform, admin, byProvider);

      const { uploadId, jobId } = await startFocusImport(platform, admin, [big]);
      await eventually(async () => expect(await rowsRead(platform, admin, jobId)).toBeGreaterThan(5000), 60_000, 100);
      await stopStore(store, 'SIGKILL');
      // attempts of 5 s each (the driver's server selection) and their retries are all spent
      await new Promise((resolve) => setTimeout(resolve, 35_000));
      store = await startStore(port, dataDir);
      const back = Date.now();

      const job = await waitForJob(platform, admin, jobId, 60_000);
      expect(job.status).toBe('failed');
      expect(job.error).toMatch(/unreachable|stopped reporting|interrupted/);
      // the job's clean-up (its rows removed, the upload failed) follows its end
      await eventually(
        async () => {
          const upload = await request(platform.costasset.url).get(`${UPLOADS}/${uploadId}`).set('corelite-token', admin).expect(200);
          expect(upload.body.status).toBe('failed');
          const items = await request(platform.costasset.url)
            .get('/api/costasset/v1/costLineItems')
            .query({ uploadRefId: uploadId, limit: 1 })
            .set('corelite-token', admin)
            .expect(200);
          expect(items.body.items).toEqual([]);
        },
        60_000,
        250,
      );
      expect(Date.now() - back).toBeLessThan(60_000);
      expectSameTotals(await costTotals(platform, admin, byProvider), totalsBefore);
    }, 240_000);
  });

  describe('the object store killed mid-import', () => {
    let platform: Platform;
    let admin: string;

    beforeAll(async () => {
      platform = await startPlatform({ GPD_BATCH_SIZE: '500', JOBS_RETRY_DELAY_MS: '2000', JOBS_ACK_WAIT_MS: '5000' });
      admin = await platform.token({ sub: 'admin' });
    });

    afterAll(async () => {
      await startComponent('s3', quiet);
      await platform?.close();
    });

    it('retries the import, reporting the object store, and completes it with every row once the store is back', async () => {
      const { jobId } = await startFocusImport(platform, admin, [big]);
      await eventually(async () => expect(await rowsRead(platform, admin, jobId)).toBeGreaterThan(5000), 60_000, 100);
      await stopComponent('s3', quiet);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await startComponent('s3', quiet);

      const job = await waitForJob(platform, admin, jobId, 120_000);
      expect(['succeeded', 'completed_with_errors']).toContain(job.status);
      expect(job.attempts).toBeGreaterThanOrEqual(2);
      expect(job.result).toMatchObject({ rowsRead: BIG_ROWS });
      const totals = await costTotals(platform, admin, byProvider);
      expect(totals.reduce((sum, group) => sum + group.lineItems, 0)).toBe(job.result?.rowsWritten);
    }, 240_000);
  });
});
