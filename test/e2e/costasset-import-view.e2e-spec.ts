import request from 'supertest';
import { FINAL_JOB_STATUSES } from '../../apps/costasset/src/jobs/schemas/job.schema';
import { focusFile, importFocus, startFocusImport } from '../support/focus';
import { Platform, startPlatform } from '../support/platform';

/**
 * A re-import of a month, read while it runs: every answer of the explorer and of the line-item
 * totals shows the month as the older import left it, or as the newer one leaves it, never a mix
 * of both and never the newer one half written.
 */
const COSTS = '/api/costasset/v1/costs';
const TOTALS = '/api/costasset/v1/costLineItems/totals';

describe('a re-import under a concurrent reader', () => {
  let platform: Platform;
  let admin: string;

  beforeAll(async () => {
    platform = await startPlatform({ GPD_BATCH_SIZE: '500' });
    admin = await platform.token({ sub: 'admin' });
  });
  afterAll(() => platform.close());

  // the rollups and the line items sum the same doubles in another order: equal to the last binary digit or so
  const rounded = (amount: number) => Math.round(amount * 1e6) / 1e6;

  /** What a reader sees of the month: the explorer's series and the totals, by provider. */
  async function answer(): Promise<string> {
    const [explorer, totals] = await Promise.all([
      request(platform.costasset.url).get(COSTS).query({ groupBy: 'providerName' }).set('corelite-token', admin).expect(200),
      request(platform.costasset.url).get(TOTALS).query({ groupBy: 'providerName' }).set('corelite-token', admin).expect(200),
    ]);
    const series = explorer.body.series.map((one: { key: unknown; total: number; lineItems: number }) => [
      one.key,
      rounded(one.total),
      one.lineItems,
    ]);
    const groups = totals.body.groups.map((one: { key: unknown; cost: number; lineItems: number }) => [
      one.key,
      rounded(one.cost),
      one.lineItems,
    ]);
    return JSON.stringify({ series, groups });
  }

  it('shows the older import or the newer one, never a mix, while the newer one is written', async () => {
    const periods = ['202410'];
    const older = await focusFile({ version: '1.2', format: 'csv', rows: 2000, periods }, 'older.csv');
    const newer = await focusFile({ version: '1.2', format: 'csv', rows: 30_000, periods }, 'newer.csv');
    const first = await importFocus(platform, admin, [older]);
    expect(['succeeded', 'completed_with_errors']).toContain(first.job.status);
    const before = await answer();

    const { jobId } = await startFocusImport(platform, admin, [newer]);
    const seen: string[] = [];
    for (;;) {
      const job = await request(platform.costasset.url).get(`/api/costasset/v1/jobs/${jobId}`).set('corelite-token', admin).expect(200);
      seen.push(await answer());
      if (FINAL_JOB_STATUSES.includes(job.body.status)) break;
    }
    const after = await answer();
    expect(after).not.toEqual(before);
    expect(seen.length).toBeGreaterThan(5);
    const mixed = seen.filter((one) => one !== before && one !== after);
    expect(mixed).toEqual([]);
  }, 180_000);
});
