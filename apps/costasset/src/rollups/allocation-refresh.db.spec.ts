import fc from 'fast-check';
import { comparableRows, openRollupStack } from '../../../../test/support/rollup-stack';
import { type TestDatabase } from '../../../../tools/embedded-mongo/test/test-database';
import { AllocationModel, type DimensionRule } from '../allocation/allocation-model';
import type { AllocationModels } from '../allocation/allocation-models';
import type { RollupWiring } from '../../../../test/support/rollup-wiring';

/**
 * A rule change recomputes only the rows holding allocation fields (`refreshAllocation`, the
 * rebuild job's work): by month from the rows by resource when the rules read nothing else, from
 * the line items otherwise; by day from the line items. On random line items and rules, every
 * level then holds exactly what a whole refresh with the new settings gives, the other levels are
 * untouched, and queries reading no allocation field read the rollups throughout.
 */

const TENANT = 't-allocation-refresh';
const UPLOADS = ['u0', 'u1', 'u2'];
const lineItem = fc.record({
  providerName: fc.constantFrom('aws', 'azure'),
  serviceName: fc.constantFrom('ec2', 's3', 'support'),
  billingAccountId: fc.constantFrom('111', '222', undefined),
  resourceId: fc.constantFrom('i-1', 'i-2', 'vol-1', undefined),
  period: fc.constantFrom('202401', '202402'),
  day: fc.integer({ min: 1, max: 28 }),
  cost: fc.integer({ min: -20, max: 400 }).map((quarters) => quarters / 4),
  tags: fc.uniqueArray(
    fc
      .record({ key: fc.constantFrom('env', 'owner', 'cost-center'), value: fc.constantFrom('a', 'b', 'prod') })
      .map(({ key, value }) => ({ group: 'default', key, value })),
    { maxLength: 3, selector: (tag) => tag.key },
  ),
});
/** Rules over fields and tags, activated or not (the rows by resource keep every tag). */
const rule = fc.record({
  expr: fc.constantFrom(
    "serviceName == 'support'",
    "tag('default', 'env' == 'prod')",
    "tag('default', 'cost-center' == 'a')",
    "billingAccountId == '111' || tag('default', 'owner' != 'b')",
    "providerName == 'azure' && serviceName != 's3'",
  ),
  value: fc.constantFrom('x', 'y', 'z', 'unallocated'),
});

const modelOf = (revision: number, rules: DimensionRule[]) =>
  new AllocationModel({
    revision,
    rollupRevision: revision,
    tagKeys: [{ group: 'default', key: 'owner' }],
    dimensions: [{ name: 'team', rules, defaultValue: 'unallocated' }],
  });

type Levels = RollupWiring['levels'];
const ALLOCATION_LEVELS = ['monthlyAllocated', 'summaryAllocated', 'allocation', 'allocationDaily'] as const;
const BASE_LEVELS = ['daily', 'monthly', 'summary', 'resources'] as const;

/** A level's rows as comparable text (`comparableRows`). */
async function rowsOf(levels: Levels, name: keyof Levels): Promise<string[]> {
  return comparableRows(await levels[name].aggregate<Record<string, unknown>>(TENANT, [{ $match: {} }]));
}

describe('a rule change recomputes the allocation rows only, against a database', () => {
  let db: TestDatabase;
  let stack: RollupWiring;
  let allocation = AllocationModel.EMPTY;

  beforeAll(async () => {
    const models = { current: async () => allocation } as unknown as AllocationModels;
    ({ db, ...stack } = await openRollupStack('allocation_refresh', models));
  }, 60_000);

  afterAll(async () => {
    await db?.close();
  });

  it('leaves every level as a whole refresh with the new rules leaves it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(lineItem, { minLength: 1, maxLength: 40 }),
        fc.array(rule, { maxLength: 4 }),
        fc.array(rule, { minLength: 1, maxLength: 4 }),
        async (rows, before, after) => {
          const { lineItems, levels, rollups, planner, keys } = stack;
          await Promise.all([lineItems, keys, ...Object.values(levels)].map((repository) => repository.deleteMany(TENANT, {})));
          allocation = modelOf(1, before);
          await rollups.begin(TENANT, UPLOADS);
          const docs = rows.map(({ day, resourceId, billingAccountId, ...row }, index) => ({
            ...row,
            ...(resourceId ? { resourceId } : {}),
            ...(billingAccountId ? { billingAccountId } : {}),
            uploadRefId: UPLOADS[index % 3],
            billingPeriod: row.period,
            chargePeriodStart: new Date(`${row.period.slice(0, 4)}-${row.period.slice(4)}-${String(day).padStart(2, '0')}T06:00:00Z`),
          }));
          // every other line item has a twin an hour later (a resource's usage over the day): rows by resource of several line items
          const twins = docs.filter((_doc, index) => index % 2 === 0);
          const later = twins.map((doc) => ({
            ...doc,
            cost: doc.cost + 1,
            chargePeriodStart: new Date(doc.chargePeriodStart.getTime() + 3_600_000),
          }));
          await lineItems.insertBulk(TENANT, [...docs, ...later] as never[]);
          await rollups.refresh(TENANT, UPLOADS);
          const base = await Promise.all(BASE_LEVELS.map((name) => rowsOf(levels, name)));

          // the change as AllocationService saves it: the settings, then the bump, then the job
          allocation = modelOf(2, after);
          await rollups.allocationChanged(TENANT);
          const view = await planner.view(TENANT);
          expect([view.rollupsReady, view.allocationReady]).toEqual([true, { month: false, day: false }]);
          // meanwhile: queries reading no allocation field read the rollups, those reading the dimension the line items
          expect(await planner.choose(TENANT, {}, ['providerName', 'cost'], view)).toMatchObject({ source: 'rollup' });
          expect(await planner.choose(TENANT, {}, ['dimensions.team', 'cost'], view)).toMatchObject({ transient: true });

          let progressed = 0;
          expect(await rollups.refreshAllocation(TENANT, async (done) => void (progressed = done))).toBe(UPLOADS.length);
          expect(progressed).toBeGreaterThanOrEqual(UPLOADS.length);
          expect((await planner.view(TENANT)).allocationReady).toEqual({ month: true, day: true });
          expect(await planner.choose(TENANT, {}, ['dimensions.team', 'cost'])).toMatchObject({
            source: 'rollup',
            narrow: 'dimension:team',
          });
          const recomputed = await Promise.all(ALLOCATION_LEVELS.map((name) => rowsOf(levels, name)));
          // the other levels were not rewritten by the change
          expect(await Promise.all(BASE_LEVELS.map((name) => rowsOf(levels, name)))).toEqual(base);
          // a second run has nothing left to do
          expect(await rollups.refreshAllocation(TENANT, async () => undefined)).toBe(0);

          // what a whole refresh with the new settings leaves
          await rollups.refresh(TENANT, UPLOADS);
          expect(await Promise.all(ALLOCATION_LEVELS.map((name) => rowsOf(levels, name)))).toEqual(recomputed);
          expect(await Promise.all(BASE_LEVELS.map((name) => rowsOf(levels, name)))).toEqual(base);
        },
      ),
      { numRuns: 20 },
    );
  }, 240_000);

  it('has a write that came during the change recompute its upload whole with the new rules', async () => {
    const { lineItems, levels, rollups, keys } = stack;
    await Promise.all([lineItems, keys, ...Object.values(levels)].map((repository) => repository.deleteMany(TENANT, {})));
    allocation = modelOf(1, [{ expr: "serviceName == 'support'", value: 'x' }]);
    const item = { providerName: 'aws', serviceName: 'support', period: '202401', billingPeriod: '202401', cost: 5 };
    await rollups.begin(TENANT, ['u0']);
    await lineItems.insertBulk(TENANT, [{ ...item, uploadRefId: 'u0', chargePeriodStart: new Date('2024-01-02T00:00:00Z') }] as never[]);
    // a load at work on u0 (stale, the old rules read) when the change is saved
    const load = stack.rollups.track(TENANT, 'u0');
    await load.touch();
    allocation = modelOf(2, [{ expr: "serviceName == 'support'", value: 'y' }]);
    await rollups.allocationChanged(TENANT);
    // the job runs before the load ends (it recomputes u0 whole, as it is being written)
    await rollups.refreshAllocation(TENANT, async () => undefined);
    await load.touch();
    load.written([{ ...item, uploadRefId: 'u0', chargePeriodStart: new Date('2024-01-02T00:00:00Z') }], 1);
    // the load's sums (by the old rules) are not stored: the bump made it recompute with the new ones
    await load.finish();
    const rows = await levels.allocation.aggregate<{ dimensions: { team: string } }>(TENANT, [{ $match: { field: 'dimension:team' } }]);
    expect(rows.map((row) => row.dimensions.team)).toEqual(['y']);
    expect((await stack.planner.view(TENANT)).allocationReady).toEqual({ month: true, day: true });
  });
});
