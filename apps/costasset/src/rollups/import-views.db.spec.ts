import { openRollupStack } from '../../../../test/support/rollup-stack';
import { AllocationModel } from '../allocation/allocation-model';
import type { AllocationModels } from '../allocation/allocation-models';
import { type TestDatabase } from '../../../../tools/embedded-mongo/test/test-database';
import { costTotalsPipeline, totalsReadFields, TotalsRow } from '../line-items/cost-totals';
import { CostLineItemRepository } from '../line-items/line-items.repository';
import { CostLineItem } from '../line-items/schemas/cost-line-item.schema';
import { hiddenUploads, ImportViews } from './import-views';
import { CostSource, LINE_ITEMS, RollupPlanner } from './rollup-planner';
import { RollupsService } from './rollups.service';

const NO_ALLOCATION = { current: async () => AllocationModel.EMPTY } as unknown as AllocationModels;

/**
 * A re-import of a month under a concurrent reader, against a database (the embedded store, or
 * `MONGODB_URI`): the import's steps as the FOCUS import takes them (hide, write in batches, sum
 * its rollups, publish, delete the replaced scope and refresh its upload, release), and a reader
 * that keeps asking the totals by period from the line items and from both rollup levels the
 * whole time. Every answer is the month before the re-import or the month after it, never a mix;
 * and the rollups keep answering while the import writes.
 */

const TENANT = 't-import-view';
type Totals = Record<string, { cost: number; lineItems: number }>;

function lineItem(uploadRefId: string, billingPeriod: string, day: number, cost: number, billingAccountId = 'a1') {
  return {
    uploadRefId,
    providerName: 'aws',
    billingAccountId,
    billingAccountName: `account ${billingAccountId}`,
    billingPeriod,
    period: billingPeriod,
    serviceName: 'ec2',
    chargePeriodStart: new Date(`${billingPeriod.slice(0, 4)}-${billingPeriod.slice(4)}-${String(day).padStart(2, '0')}T03:00:00Z`),
    cost,
    billedCost: cost,
    effectiveCost: cost,
    listCost: cost,
    contractedCost: cost,
    billingCurrency: 'EUR',
    currency: 'EUR',
  } as unknown as Omit<CostLineItem, 'tenantId'>;
}

describe('ImportViews against a database: a concurrent reader of a re-import', () => {
  let db: TestDatabase;
  let lineItems: CostLineItemRepository;
  let rollups: RollupsService;
  let importViews: ImportViews;
  let planner: RollupPlanner;

  beforeAll(async () => {
    ({ db, lineItems, rollups, importViews, planner } = await openRollupStack('import_views', NO_ALLOCATION));
  }, 60_000);

  afterAll(async () => {
    await db?.close();
  });

  /**
   * The totals by period from one source, through a view looked up just before (as a request
   * does); null for rollups the view says may not answer (a refresh is rewriting them).
   */
  async function totalsFrom(where: CostSource | 'planned'): Promise<{ totals: Totals; source: CostSource } | null> {
    const view = await planner.view(TENANT);
    const groupBy = ['period'];
    const source = where === 'planned' ? await planner.choose(TENANT, {}, totalsReadFields(groupBy), view) : where;
    if (source.source === 'rollup' && !view.rollupsReady) return null;
    const rows = await planner.aggregate<TotalsRow>(TENANT, source, costTotalsPipeline({}, groupBy, source.source), view);
    const totals: Totals = {};
    for (const row of rows) totals[String(row._id?.period)] = { cost: row.cost, lineItems: row.lineItems };
    return { totals, source };
  }

  it('shows the month before the re-import or after it, never both nor a part, and keeps the rollups answering meanwhile', async () => {
    // the older import: January and February of one account, rolled up
    const old = [1, 2, 3, 4].flatMap((day) => [lineItem('old', '202401', day, 10), lineItem('old', '202402', day, 5)]);
    await lineItems.insertBulk(TENANT, old);
    await rollups.refresh(TENANT, ['old']);
    // totals by period read the monthly summary while no scope is hidden by billing account
    const summary = { source: 'rollup', rollupLevel: 'month', summary: true };
    expect((await totalsFrom('planned'))?.source).toEqual(summary);

    const before: Totals = { '202401': { cost: 40, lineItems: 4 }, '202402': { cost: 20, lineItems: 4 } };
    const after: Totals = { '202401': { cost: 21, lineItems: 6 }, '202402': { cost: 20, lineItems: 4 } };
    const seen = { before: 0, after: 0, fromRollupsWhileImporting: 0 };
    let importing = false;
    let done = false;

    const reader = (async () => {
      while (!done) {
        for (const where of [
          'planned',
          LINE_ITEMS,
          { source: 'rollup', rollupLevel: 'month' },
          { source: 'rollup', rollupLevel: 'day' },
        ] as const) {
          const answer = await totalsFrom(where);
          if (!answer) continue;
          const { totals, source } = answer;
          const matches = (expected: Totals) => JSON.stringify(totals) === JSON.stringify(expected);
          if (!matches(before) && !matches(after)) throw new Error(`a mix from ${JSON.stringify(source)}: ${JSON.stringify(totals)}`);
          if (matches(before)) seen.before++;
          else seen.after++;
          if (where === 'planned' && importing && source.source === 'rollup') seen.fromRollupsWhileImporting++;
        }
      }
    })();

    // the re-import of January: hidden whole before it writes anything
    await importViews.hide(TENANT, 'new');
    importing = true;
    const tracker = rollups.track(TENANT, 'new');
    await tracker.touch();
    for (const batch of [
      [lineItem('new', '202401', 1, 3), lineItem('new', '202401', 2, 3)],
      [lineItem('new', '202401', 3, 3), lineItem('new', '202401', 4, 4)],
      [lineItem('new', '202401', 5, 4), lineItem('new', '202401', 6, 4)],
    ]) {
      const stored = await lineItems.insertBulk(TENANT, batch);
      tracker.written(batch, stored);
      await tracker.touch();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // the import's upload is stale the whole time, yet hidden: the rollups answer
    expect(await rollups.ready(TENANT, new Date(), hiddenUploads((await importViews.current(TENANT)).hidden))).toBe(true);
    expect(await totalsFrom('planned')).toEqual({ totals: before, source: summary });
    await tracker.finish();
    importing = false;

    // one update: January of `new` shown, January of `old` hidden
    const replaced = { uploadRefId: 'old', providerName: 'aws', billingAccountId: 'a1', billingPeriod: '202401' };
    await importViews.publish(TENANT, 'new', [replaced]);
    // a scope hidden by billing account: the summary rows have none to hide it by, the monthly level answers
    expect(await totalsFrom('planned')).toEqual({ totals: after, source: { source: 'rollup', rollupLevel: 'month' } });
    // the replaced rows deleted (their upload stale meanwhile), its rollups refreshed, then released
    await rollups.begin(TENANT, ['old']);
    await lineItems.deleteMany(TENANT, { uploadRefId: 'old', providerName: 'aws', billingAccountId: 'a1', billingPeriod: '202401' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await rollups.refresh(TENANT, ['old']);
    await importViews.release(TENANT, [replaced]);
    expect(await importViews.current(TENANT)).toMatchObject({ hidden: [] });
    await new Promise((resolve) => setTimeout(resolve, 20));

    done = true;
    await reader;
    expect(await totalsFrom('planned')).toEqual({ totals: after, source: summary });
    expect(seen.before).toBeGreaterThan(0);
    expect(seen.after).toBeGreaterThan(0);
    expect(seen.fromRollupsWhileImporting).toBeGreaterThan(0);
  }, 60_000);

  it('applies concurrent changes of one tenant’s view one after the other (the conditional update on its version)', async () => {
    const tenant = 't-concurrent';
    const ids = Array.from({ length: 16 }, (_, i) => `u${String(i).padStart(2, '0')}`);
    // the first ones race to create the tenant's view (the unique index refuses all but one)
    await Promise.all(ids.map((id) => importViews.hide(tenant, id)));
    expect([...hiddenUploads((await importViews.current(tenant)).hidden)].sort()).toEqual(ids);
    await Promise.all(
      ids.map((id, i) =>
        importViews.publish(tenant, id, [{ uploadRefId: 'old', providerName: 'aws', billingAccountId: `a${i}`, billingPeriod: '202401' }]),
      ),
    );
    const view = await importViews.current(tenant);
    expect(hiddenUploads(view.hidden).size).toBe(0);
    expect(view.hidden.map((entry) => entry.billingAccountId).sort()).toEqual(ids.map((_, i) => `a${i}`).sort());
    expect(view.version).toBe(2 * ids.length);
  }, 60_000);
});
