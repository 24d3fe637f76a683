import fc from 'fast-check';
import { AllocationModel } from '../allocation/allocation-model';
import { ProviderIdentity } from '../allocation/provider-identity';
import type { AllocationModels } from '../allocation/allocation-models';
import type { PipelineStage } from 'mongoose';
import { compileExpression } from '../expressions';
import { costTotalsPipeline, totalsReadFields } from '../line-items/cost-totals';
import type { CostLineItemRepository } from '../line-items/line-items.repository';
import { templateFields } from '../report-models/report-templates';
import { MAX_RESOURCE_ROWS, RollupAccumulator } from './rollup-accumulator';
import { monthlyGroups, monthlyRollupRow, resourceRowsPipeline, rollupPipeline, rollupRow, summaryGroups } from './rollup-fields';
import type { ImportView, ImportViews } from './import-views';
import { CostSource, CostView, excluding, LINE_ITEMS, lineItemCount, RollupPlanner } from './rollup-planner';
import type { RollupKeyRepository, RollupLevels } from './rollups.repository';
import { REPAIR_AFTER_MS, RollupsService } from './rollups.service';
import { BACKFILL_MARKER, RollupKey, SUMMARY_DIMENSIONS } from './schemas/cost-rollup.schema';

/**
 * Which source answers a cost aggregation (monthly rollups, daily rollups or the line items), when
 * the rollups may answer at all, and that both answer the same: the rules every cost, budget and
 * report query relies on. Repositories are stubs; nothing runs a database.
 */

const MONTH = { source: 'rollup', rollupLevel: 'month' } as const;
const SUMMARY = { source: 'rollup', rollupLevel: 'month', summary: true } as const;
const DAY = { source: 'rollup', rollupLevel: 'day' } as const;

const NO_ALLOCATION = { current: async () => AllocationModel.EMPTY } as unknown as AllocationModels;
const READY: CostView = { rollupsReady: true, exclusion: {}, allocation: AllocationModel.EMPTY, providers: ProviderIdentity.NONE };
const NOT_READY: CostView = { rollupsReady: false, exclusion: {}, allocation: AllocationModel.EMPTY, providers: ProviderIdentity.NONE };

function plannerWith(ready: boolean, view: ImportView = { version: 0, hidden: [] }) {
  const rollupsService = {
    ready: jest.fn(async (_tenantId: string, _now?: Date, _hidden?: Promise<ReadonlySet<string>>) => ready),
    providerSpellings: jest.fn(async () => []),
    allocationReady: jest.fn(async () => ({ month: true, day: true })),
  };
  const importViews = { current: jest.fn(async () => view), exclusion: jest.fn(async () => ({ from: 'exclusion lookup' })) };
  const level = (name: string) => ({ aggregate: jest.fn(async () => [{ from: name }]), distinct: jest.fn(async () => []) });
  const daily = level('daily');
  const monthly = level('monthly');
  const summary = level('summary');
  const resources = level('resources');
  const lineItems = level('line-items');
  const planner = new RollupPlanner(
    rollupsService as unknown as RollupsService,
    importViews as unknown as ImportViews,
    {
      daily,
      monthly,
      monthlyAllocated: level('allocated'),
      allocation: level('allocation'),
      allocationDaily: level('allocation-daily'),
      summary,
      summaryAllocated: level('summary-allocated'),
      resources,
    } as unknown as RollupLevels,
    lineItems as unknown as CostLineItemRepository,
    NO_ALLOCATION,
  );
  return { planner, rollupsService, importViews, daily, monthly, summary, resources, lineItems };
}

describe('RollupPlanner.choose (which level answers)', () => {
  const byMonth = compileExpression('providerName == "aws" && region != "eu-west-1"');

  it('answers from the monthly rollups when the query reads no day', async () => {
    const { planner } = plannerWith(true);
    expect(await planner.choose('t1', byMonth, totalsReadFields(['serviceName', 'period']))).toEqual(MONTH);
    expect(await planner.choose('t1', { billingAccountId: { $eq: 'a1' } }, ['period', 'cost'])).toEqual(MONTH);
  });

  it('answers from the monthly summary when the query reads only what it keeps (no account, service or region)', async () => {
    const { planner } = plannerWith(true);
    expect(await planner.choose('t1', {}, totalsReadFields(['providerName', 'serviceCategory']))).toEqual(SUMMARY);
    expect(await planner.choose('t1', { period: { $gte: '202401', $lte: '202403' } }, ['period', 'cost'])).toEqual(SUMMARY);
    expect(await planner.choose('t1', {}, totalsReadFields([]))).toEqual(SUMMARY);
    // hidden by the import view: a whole upload, or a scope by provider and billing period, is hidden from summary rows
    const hiddenUpload = { ...READY, exclusion: { $nor: [{ uploadRefId: 'u1' }] } };
    expect(await planner.choose('t1', {}, totalsReadFields(['providerName']), hiddenUpload)).toEqual(SUMMARY);
    // a scope by billing account is not: the monthly level answers while it is hidden
    const hiddenScope = { ...READY, exclusion: { $nor: [{ uploadRefId: 'u1', billingAccountId: 'a1', billingPeriod: '202401' }] } };
    expect(await planner.choose('t1', {}, totalsReadFields(['providerName']), hiddenScope)).toEqual(MONTH);
  });

  it('answers from the daily rollups when the filter or the grouping reads the day (chargePeriodStart)', async () => {
    const { planner } = plannerWith(true);
    const range = { chargePeriodStart: { $gte: new Date('2024-01-05'), $lt: new Date('2024-03-20') } };
    expect(await planner.choose('t1', range, totalsReadFields(['providerName']))).toEqual(DAY);
    expect(await planner.choose('t1', byMonth, ['chargePeriodStart', 'cost'])).toEqual(DAY);
    expect(await planner.choose('t1', { $and: [byMonth, { $or: [range] }] }, ['cost'])).toEqual(DAY);
  });

  it('falls back to the line items when the filter reads a field that is not rolled up', async () => {
    const { planner } = plannerWith(true);
    expect(await planner.choose('t1', compileExpression(`tag('env', 'stage' == 'prod')`), ['cost'])).toEqual(LINE_ITEMS);
    expect(await planner.choose('t1', { resourceId: { $eq: 'i-1' }, skuId: { $eq: 'x' } }, ['cost'])).toEqual(LINE_ITEMS);
    expect(await planner.choose('t1', { $nor: [{ $and: [byMonth, { skuId: { $eq: 'x' } }] }] }, ['cost'])).toEqual(LINE_ITEMS);
  });

  it('falls back to the line items when the query groups or sums by a field that is not rolled up', async () => {
    const { planner } = plannerWith(true);
    expect(await planner.choose('t1', byMonth, totalsReadFields(['invoiceId']))).toEqual(LINE_ITEMS);
    expect(await planner.choose('t1', {}, ['period', 'consumedQuantity'])).toEqual(LINE_ITEMS);
  });

  it('answers a monthly query reading resource ids from the rows by resource, nothing else from them', async () => {
    const { planner, resources, monthly } = plannerWith(true);
    const BY_RESOURCE = { source: 'rollup', rollupLevel: 'month', resources: true };
    // the top-resources template, under any expression over the monthly dimensions
    expect(await planner.choose('t1', byMonth, templateFields('top-resources'))).toEqual(BY_RESOURCE);
    expect(await planner.choose('t1', { resourceId: { $eq: 'i-1' } }, totalsReadFields(['serviceName', 'period']))).toEqual(BY_RESOURCE);
    // a day, a tag, a dimension, an amount compared or another column: not kept by resource
    const range = { chargePeriodStart: { $gte: new Date('2024-01-05') } };
    expect(await planner.choose('t1', range, templateFields('top-resources'))).toEqual(LINE_ITEMS);
    expect(await planner.choose('t1', compileExpression(`tag('env', 'stage' == 'prod')`), templateFields('top-resources'))).toEqual(
      LINE_ITEMS,
    );
    expect(await planner.choose('t1', { cost: { $gt: 1 } }, templateFields('top-resources'))).toEqual(LINE_ITEMS);
    expect(await planner.choose('t1', {}, ['resourceId', 'resourceName', 'cost'])).toEqual(LINE_ITEMS);
    // while the rollups are stale: the line items
    expect(await plannerWith(false).planner.choose('t1', byMonth, templateFields('top-resources'))).toEqual(LINE_ITEMS);
    // the pipeline runs over the rows by resource, through the import view
    const hidden = { ...READY, exclusion: { $nor: [{ uploadRefId: 'u1' }] } };
    await planner.aggregate('t1', BY_RESOURCE as CostSource, [{ $match: byMonth }], hidden);
    expect(resources.aggregate).toHaveBeenCalledWith('t1', [{ $match: { $and: [byMonth, hidden.exclusion] } }]);
    expect(monthly.aggregate).not.toHaveBeenCalled();
  });

  it('reads allocation fields from the rollups only at the levels computed with the current settings', async () => {
    const { planner } = plannerWith(true);
    const allocation = new AllocationModel({
      revision: 3,
      rollupRevision: 3,
      tagKeys: [{ group: 'default', key: 'env' }],
      dimensions: [{ name: 'team', rules: [{ expr: "serviceName == 'EC2'", value: 'compute' }], defaultValue: 'unallocated' }],
    });
    const viewWith = (month: boolean, day: boolean): CostView => ({ ...READY, allocation, allocationReady: { month, day } });
    const byTeam = ['dimensions.team', 'cost', 'period'];
    const byTeamDaily = ['dimensions.team', 'cost', 'chargePeriodStart'];
    const byEnv = ['tags["default","env"]', 'cost', 'period'];
    // the first pass of a rebuild has not ended: monthly reads of allocation fields take the line items, the rest the rollups
    const rebuilding = viewWith(false, false);
    expect(await planner.choose('t1', byMonth, totalsReadFields(['providerName']), rebuilding)).toEqual(MONTH);
    // (rows made for the query, by month when it reads no day)
    expect(await planner.choose('t1', {}, byTeam, rebuilding)).toEqual({ source: 'rollup', rollupLevel: 'month', transient: true });
    expect(await planner.choose('t1', {}, byTeamDaily, rebuilding)).toEqual({ source: 'rollup', rollupLevel: 'day', transient: true });
    expect(await planner.choose('t1', {}, byEnv, rebuilding)).toEqual(LINE_ITEMS);
    // the monthly rows are current, those by day not yet
    const monthly = viewWith(true, false);
    expect(await planner.choose('t1', {}, byTeam, monthly)).toEqual({ ...MONTH, narrow: 'dimension:team' });
    expect(await planner.choose('t1', {}, byTeamDaily, monthly)).toEqual({ source: 'rollup', rollupLevel: 'day', transient: true });
    expect(await planner.choose('t1', {}, byTeamDaily, viewWith(true, true))).toEqual({ ...DAY, narrow: 'dimension:team' });
  });

  it('falls back to the line items when the filter compares an amount (a condition on each line item, not on a sum)', async () => {
    const { planner } = plannerWith(true);
    for (const amount of ['cost', 'billedCost', 'effectiveCost', 'listCost', 'contractedCost'])
      expect(await planner.choose('t1', { [amount]: { $gt: 10 } }, ['period', 'cost'])).toEqual(LINE_ITEMS);
    // summing the amount is fine
    expect(await planner.choose('t1', { period: { $eq: '202401' } }, ['cost', 'billedCost'])).toEqual(SUMMARY);
  });

  it('falls back to the line items while the tenant’s rollups are not current (stale upload or backfill running)', async () => {
    const { planner, rollupsService } = plannerWith(false);
    expect(await planner.choose('t1', byMonth, ['cost'])).toEqual(LINE_ITEMS);
    expect(rollupsService.ready).toHaveBeenCalledWith('t1', expect.any(Date), expect.any(Promise));
  });

  it('takes the readiness a request already looked up (its view) instead of asking again', async () => {
    const { planner, rollupsService, importViews } = plannerWith(false);
    expect(await planner.choose('t1', byMonth, ['cost'], READY)).toEqual(MONTH);
    expect(await planner.choose('t1', byMonth, ['cost'], NOT_READY)).toEqual(LINE_ITEMS);
    expect(rollupsService.ready).not.toHaveBeenCalled();
    expect(importViews.current).not.toHaveBeenCalled();
  });

  it('does not look up readiness for a query the rollups cannot answer anyway', async () => {
    const { planner, rollupsService } = plannerWith(true);
    await planner.choose('t1', { skuId: { $eq: 'x' } }, ['cost']);
    expect(rollupsService.ready).not.toHaveBeenCalled();
  });
});

describe('RollupPlanner.aggregate (one pipeline, the chosen collection)', () => {
  const pipeline: PipelineStage[] = [{ $match: {} }];

  it('runs the pipeline over the level chosen, and only there', async () => {
    const { planner, daily, monthly, summary, lineItems } = plannerWith(true);
    expect(await planner.aggregate('t1', MONTH, pipeline, READY)).toEqual([{ from: 'monthly' }]);
    expect(await planner.aggregate('t1', SUMMARY, pipeline, READY)).toEqual([{ from: 'summary' }]);
    expect(await planner.aggregate('t1', DAY, pipeline, READY)).toEqual([{ from: 'daily' }]);
    expect(await planner.aggregate('t1', LINE_ITEMS, pipeline, READY)).toEqual([{ from: 'line-items' }]);
    for (const level of [daily, monthly, summary, lineItems]) expect(level.aggregate).toHaveBeenCalledTimes(1);
    expect(monthly.aggregate).toHaveBeenCalledWith('t1', pipeline);
  });

  it('reads every level through the import view: its exclusion joins the leading $match', async () => {
    const { planner, daily, monthly, lineItems } = plannerWith(true);
    const exclusion = { $nor: [{ uploadRefId: 'importing' }] };
    const view: CostView = { rollupsReady: true, exclusion, allocation: AllocationModel.EMPTY, providers: ProviderIdentity.NONE };
    const grouped: PipelineStage[] = [{ $match: { period: '202401' } }, { $group: { _id: null, n: { $sum: 1 } } }];
    for (const where of [MONTH, DAY, LINE_ITEMS]) await planner.aggregate('t1', where, grouped, view);
    const expected = [{ $match: { $and: [{ period: '202401' }, exclusion] } }, { $group: { _id: null, n: { $sum: 1 } } }];
    for (const level of [daily, monthly, lineItems]) expect(level.aggregate).toHaveBeenCalledWith('t1', expected);
  });

  it('looks the exclusion up when the caller passed no view', async () => {
    const { planner, importViews, monthly } = plannerWith(true);
    await planner.aggregate('t1', MONTH, pipeline);
    expect(importViews.exclusion).toHaveBeenCalledWith('t1');
    expect(monthly.aggregate).toHaveBeenCalledWith('t1', [{ $match: { from: 'exclusion lookup' } }]);
  });

  it('leaves a pipeline alone when nothing is hidden, and puts the exclusion first when it starts with no $match', () => {
    const grouped: PipelineStage[] = [{ $group: { _id: '$period' } }];
    expect(excluding(grouped, {})).toBe(grouped);
    expect(excluding(grouped, { $nor: [{ uploadRefId: 'u' }] })).toEqual([{ $match: { $nor: [{ uploadRefId: 'u' }] } }, ...grouped]);
  });

  it('counts line items as one per line item, or each rollup row’s count', () => {
    expect(lineItemCount('line-items')).toBe(1);
    expect(lineItemCount('rollup')).toBe('$lineItems');
  });
});

describe('RollupPlanner.view (what a request reads through, looked up once)', () => {
  it('asks readiness with the uploads the import view hides whole, and gives the view’s exclusion', async () => {
    const since = new Date();
    const { planner, rollupsService, importViews } = plannerWith(true, {
      version: 3,
      hidden: [
        { uploadRefId: 'importing', whole: true, since },
        { uploadRefId: 'older', providerName: 'aws', billingAccountId: 'a1', billingPeriod: '202401', whole: false, since, by: 'newer' },
      ],
    });
    const view = await planner.view('t1');
    expect(importViews.current).toHaveBeenCalledTimes(1);
    expect(view.rollupsReady).toBe(true);
    expect(view.exclusion).toEqual({
      $nor: [{ uploadRefId: 'importing' }, { uploadRefId: 'older', providerName: 'aws', billingAccountId: 'a1', billingPeriod: '202401' }],
    });
    const hidden = await rollupsService.ready.mock.calls[0][2];
    expect([...(hidden ?? [])]).toEqual(['importing']);
  });
});

/** Just enough of MongoDB to run `costTotalsPipeline`: `$match` on equality, `$group` with `$sum`/`$max`, `$sort`. */
function runTotals(rows: Record<string, unknown>[], pipeline: PipelineStage[]): Record<string, unknown>[] {
  const [match, group] = pipeline as [{ $match: Record<string, { $eq: unknown }> }, { $group: Record<string, unknown> }];
  const kept = rows.filter((row) => Object.entries(match.$match).every(([field, condition]) => row[field] === condition.$eq));
  const { _id: id, ...accumulators } = group.$group as { _id: Record<string, string> | null } & Record<string, Record<string, unknown>>;
  const groups = new Map<string, Record<string, unknown>>();
  for (const row of kept) {
    const key = id ? Object.fromEntries(Object.entries(id).map(([name, path]) => [name, row[path.slice(1)] ?? null])) : null;
    const out = groups.get(JSON.stringify(key)) ?? { _id: key };
    for (const [name, accumulator] of Object.entries(accumulators)) {
      if ('$sum' in accumulator) {
        const operand = accumulator.$sum;
        const value = typeof operand === 'string' ? row[operand.slice(1)] : operand;
        out[name] = ((out[name] as number | undefined) ?? 0) + (typeof value === 'number' ? value : 0);
      } else {
        const value = row[(accumulator.$max as string).slice(1)] as string | undefined;
        out[name] =
          [out[name] as string | undefined, value]
            .filter((v) => v != null)
            .sort()
            .pop() ?? null;
      }
    }
    groups.set(JSON.stringify(key), out);
  }
  return [...groups.values()].sort((a, b) => JSON.stringify(a._id).localeCompare(JSON.stringify(b._id)));
}

describe('rollups answer what the line items answer', () => {
  const lineItem = fc.record({
    providerName: fc.constantFrom('aws', 'azure'),
    region: fc.constantFrom('eu-west-1', 'us-east-1', undefined),
    serviceName: fc.constantFrom('EC2', 'S3'),
    resourceId: fc.constantFrom('i-1', 'i-2', 'b-1', undefined),
    period: fc.constantFrom('202401', '202402'),
    day: fc.integer({ min: 1, max: 28 }),
    hour: fc.integer({ min: 0, max: 23 }),
    // up to six decimals, credits included, as billing exports write them
    micros: fc.integer({ min: -2_000_000, max: 50_000_000 }),
  });

  it('gives the same groups, line-item counts and sums (to the last binary digits) at every level (day, month, summary, resource)', () => {
    fc.assert(
      fc.property(
        fc.array(lineItem, { minLength: 1, maxLength: 40 }),
        fc.subarray(['providerName', 'region', 'serviceName', 'period', 'resourceId']),
        (specs, groupBy) => {
          const items = specs.map(({ day, hour, micros, region, resourceId, ...dimensions }) => ({
            ...dimensions,
            ...(region ? { region } : {}),
            ...(resourceId ? { resourceId } : {}),
            currency: 'USD',
            chargePeriodStart: new Date(
              `${dimensions.period.slice(0, 4)}-${dimensions.period.slice(4)}-${String(day).padStart(2, '0')}` +
                `T${String(hour).padStart(2, '0')}:00:00Z`,
            ),
            cost: micros / 1e6,
            billedCost: micros / 1e6,
            effectiveCost: micros / 1e5,
          }));
          const load = new RollupAccumulator();
          load.add(items);
          const daily = load.rows();
          const dailyRows = daily.map((group) => rollupRow('u1', group));
          const monthlyRows = monthlyGroups(daily).map((group) => monthlyRollupRow('u1', group));
          const summaryRows = summaryGroups(monthlyGroups(daily)).map((group) => monthlyRollupRow('u1', group));
          const resourceRows = load.resourceRows()!.map((group) => monthlyRollupRow('u1', group));
          const match = { providerName: { $eq: 'aws' } };
          const expected = runTotals(items, costTotalsPipeline(match, groupBy, 'line-items'));
          const summaryAnswers = groupBy.every((field) => (SUMMARY_DIMENSIONS as readonly string[]).includes(field));
          const levels = groupBy.includes('resourceId')
            ? [resourceRows]
            : summaryAnswers
              ? [dailyRows, monthlyRows, summaryRows, resourceRows]
              : [dailyRows, monthlyRows, resourceRows];
          for (const rows of levels) {
            const actual = runTotals(rows as unknown as Record<string, unknown>[], costTotalsPipeline(match, groupBy, 'rollup'));
            expect(actual.map((row) => [row._id, row.lineItems, row.currency])).toEqual(
              expected.map((row) => [row._id, row.lineItems, row.currency]),
            );
            actual.forEach((row, index) => {
              for (const amount of ['cost', 'billedCost', 'effectiveCost', 'listCost', 'contractedCost']) {
                const want = expected[index][amount] as number;
                expect(Math.abs((row[amount] as number) - want)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(want)));
              }
            });
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});

/** The RollupKeyRepository methods RollupsService uses, over an array of rollup states. */
class FakeKeys {
  readonly states: RollupKey[] = [];
  readonly bump = jest.fn(async (tenantId: string, uploadRefId: string) => {
    const state = this.state(tenantId, uploadRefId);
    state.generation += 1;
    state.dirtySince = new Date();
    return state.generation;
  });
  readonly markDirty = jest.fn(async (tenantId: string, uploadRefIds: string[]) => {
    for (const id of uploadRefIds) await this.bump(tenantId, id);
  });
  readonly lock = jest.fn(async (tenantId: string, uploadRefId: string) => {
    const state = this.state(tenantId, uploadRefId);
    if (state.lockedUntil) return null;
    state.lockedUntil = new Date(Date.now() + 60_000);
    return { ...state };
  });
  readonly settle = jest.fn(async (tenantId: string, uploadRefId: string, generation: number) => {
    const state = this.state(tenantId, uploadRefId);
    if (state.generation !== generation) return false;
    Object.assign(state, { dirtySince: null, lockedUntil: null });
    return true;
  });
  readonly unlock = jest.fn(async (tenantId: string, uploadRefId: string) => {
    this.state(tenantId, uploadRefId).lockedUntil = null;
  });

  async findOne(tenantId: string, filter: Record<string, unknown>) {
    const mine = this.states.filter((state) => state.tenantId === tenantId);
    if ('uploadRefId' in filter) return mine.find((state) => state.uploadRefId === filter.uploadRefId) ?? null;
    return (
      mine.filter((state) => state.dirtySince).sort((a, b) => (a.dirtySince as Date).getTime() - (b.dirtySince as Date).getTime())[0] ??
      null
    );
  }

  /** A stale mark of an upload other than `uploadRefId.$nin` (the one use: readiness past hidden uploads). */
  readonly exists = jest.fn(async (tenantId: string, filter: { uploadRefId: { $nin: string[] } }) =>
    this.states.some(
      (state) => state.tenantId === tenantId && state.dirtySince !== null && !filter.uploadRefId.$nin.includes(state.uploadRefId),
    ),
  );

  async find(tenantId: string, filter: { dirtySince?: { $lt: Date } }) {
    return this.states.filter(
      (state) =>
        state.tenantId === tenantId && (!filter.dirtySince || (state.dirtySince !== null && state.dirtySince < filter.dirtySince.$lt)),
    );
  }

  async updateOne(tenantId: string, filter: { uploadRefId: string }, update: { $set: Partial<RollupKey> }) {
    Object.assign(this.state(tenantId, filter.uploadRefId), update.$set);
    return 1;
  }

  state(tenantId: string, uploadRefId: string): RollupKey {
    let state = this.states.find((entry) => entry.tenantId === tenantId && entry.uploadRefId === uploadRefId);
    if (!state) {
      state = { tenantId, uploadRefId, generation: 0, dirtySince: null, lockedUntil: null };
      this.states.push(state);
    }
    return state;
  }
}

function rollupsWorld(uploadsWithLineItems: string[] = []) {
  const keys = new FakeKeys();
  const stored = (name: string) => ({
    name,
    rows: [] as Record<string, unknown>[],
    deleteMany: jest.fn(async () => 0),
    insertBulk: jest.fn(async (_t: string, docs: unknown[]) => docs.length),
  });
  const daily = stored('daily');
  const monthly = stored('monthly');
  const summary = stored('summary');
  const lineItems = {
    aggregate: jest.fn(async (_tenantId: string, pipeline: PipelineStage[]): Promise<unknown[]> => {
      const [first] = pipeline as [{ $match: Record<string, unknown> }];
      // uploadsMatching: one group per upload; rollupPipeline: the upload's daily groups (one here)
      if (first.$match.uploadRefId) return [{ _id: { providerName: 'aws', period: '202401', day: '2024-01-02' }, cost: 7, lineItems: 3 }];
      return uploadsWithLineItems.map((id) => ({ _id: id }));
    }),
    // the rows by resource, summed and written by the database as they are stored (one resource here)
    aggregateInto: jest.fn(async (_tenantId: string, _pipeline: PipelineStage[], _target: unknown) => 1),
  };
  const service = new RollupsService(
    lineItems as unknown as CostLineItemRepository,
    {
      daily,
      monthly,
      monthlyAllocated: stored('allocated'),
      allocation: stored('allocation'),
      allocationDaily: stored('allocation-daily'),
      summary,
      summaryAllocated: stored('summary-allocated'),
      resources: stored('resources'),
    } as unknown as RollupLevels,
    keys as unknown as RollupKeyRepository,
    NO_ALLOCATION,
  );
  return { service, keys, daily, monthly, summary, lineItems };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));
/** The amounts of the one daily group `rollupsWorld` recomputes (only `cost` is given, the others count as 0). */
const AMOUNTS_7 = { cost: 7, billedCost: 0, effectiveCost: 0, listCost: 0, contractedCost: 0 };

describe('RollupsService.ready (when the rollups may answer)', () => {
  it('lets the rollups answer once every upload is rolled up (the backfill marker) and none is stale', async () => {
    const { service, keys } = rollupsWorld();
    keys.state('t1', BACKFILL_MARKER);
    keys.state('t1', 'u1');
    expect(await service.ready('t1')).toBe(true);
  });

  it('keeps queries on the line items while an upload is marked stale (a write in progress)', async () => {
    const { service, keys } = rollupsWorld();
    keys.state('t1', BACKFILL_MARKER);
    keys.state('t1', 'u1').dirtySince = new Date();
    expect(await service.ready('t1')).toBe(false);
    // another tenant's stale mark does not matter
    keys.state('t2', BACKFILL_MARKER);
    expect(await service.ready('t2')).toBe(true);
  });

  it('lets the rollups answer while an import runs: the stale mark of an upload hidden whole does not count', async () => {
    const { service, keys } = rollupsWorld();
    keys.state('t1', BACKFILL_MARKER);
    keys.state('t1', 'importing').dirtySince = new Date();
    expect(await service.ready('t1', new Date(), Promise.resolve(new Set(['importing'])))).toBe(true);
    expect(keys.exists).toHaveBeenCalledTimes(1);
    // not hidden (no import view, or the import published): its mark keeps queries on the line items
    expect(await service.ready('t1')).toBe(false);
    expect(await service.ready('t1', new Date(), new Set(['another']))).toBe(false);
  });

  it('still waits for any other stale upload while a hidden one imports (an older upload having scopes deleted)', async () => {
    const { service, keys } = rollupsWorld();
    keys.state('t1', BACKFILL_MARKER);
    keys.state('t1', 'importing').dirtySince = new Date(Date.now() - 60_000);
    keys.state('t1', 'older').dirtySince = new Date();
    expect(await service.ready('t1', new Date(), new Set(['importing']))).toBe(false);
    keys.state('t1', 'older').dirtySince = null;
    expect(await service.ready('t1', new Date(), new Set(['importing']))).toBe(true);
  });

  it('needs no third lookup when the oldest stale mark is not hidden, or there is none', async () => {
    const { service, keys } = rollupsWorld();
    keys.state('t1', BACKFILL_MARKER);
    expect(await service.ready('t1', new Date(), new Set(['importing']))).toBe(true);
    keys.state('t1', 'writing').dirtySince = new Date();
    expect(await service.ready('t1', new Date(), new Set(['importing']))).toBe(false);
    expect(keys.exists).not.toHaveBeenCalled();
  });

  it('repairs a stale mark a crash left behind (older than REPAIR_AFTER_MS), answering from the line items meanwhile', async () => {
    const { service, keys, lineItems } = rollupsWorld();
    const now = new Date();
    keys.state('t1', BACKFILL_MARKER);
    keys.state('t1', 'crashed').dirtySince = new Date(now.getTime() - REPAIR_AFTER_MS - 1000);
    expect(await service.ready('t1', now)).toBe(false);
    await settle();
    await settle();
    expect(lineItems.aggregate).toHaveBeenCalledWith('t1', rollupPipeline('crashed'), 'bulk');
    expect(keys.state('t1', 'crashed').dirtySince).toBeNull();
    expect(await service.ready('t1')).toBe(true);
  });

  it('does not repair a recent stale mark (its writer is still at work)', async () => {
    const { service, keys, lineItems } = rollupsWorld();
    keys.state('t1', BACKFILL_MARKER);
    keys.state('t1', 'writing').dirtySince = new Date();
    expect(await service.ready('t1')).toBe(false);
    await settle();
    expect(lineItems.aggregate).not.toHaveBeenCalled();
  });

  it('backfills the uploads written before rollups existed in the background, then lets the rollups answer', async () => {
    const { service, keys, lineItems } = rollupsWorld(['old-1', 'old-2']);
    expect(await service.ready('t1')).toBe(false);
    for (let i = 0; i < 10; i++) await settle();
    expect(lineItems.aggregate).toHaveBeenCalledWith('t1', rollupPipeline('old-1'), 'bulk');
    expect(lineItems.aggregate).toHaveBeenCalledWith('t1', rollupPipeline('old-2'), 'bulk');
    expect(await keys.findOne('t1', { uploadRefId: BACKFILL_MARKER })).not.toBeNull();
    expect(await service.ready('t1')).toBe(true);
  });

  it('marks a tenant whose uploads all have rollup state backfilled at once', async () => {
    const { service, keys, lineItems } = rollupsWorld(['u1']);
    keys.state('t1', 'u1');
    expect(await service.ready('t1')).toBe(true);
    expect(lineItems.aggregate).not.toHaveBeenCalledWith('t1', rollupPipeline('u1'), 'bulk');
  });
});

describe('RollupsService.refresh (recomputes an upload after a write)', () => {
  it('replaces the upload’s daily and monthly rows with the sums of its line items, and clears the stale mark', async () => {
    const { service, keys, daily, monthly, summary } = rollupsWorld();
    await service.begin('t1', ['u1']);
    expect(keys.state('t1', 'u1').dirtySince).toBeInstanceOf(Date);
    await service.refresh('t1', ['u1', 'u1']);
    expect(daily.deleteMany).toHaveBeenCalledWith('t1', { uploadRefId: 'u1' });
    expect(daily.insertBulk).toHaveBeenCalledWith('t1', [expect.objectContaining({ uploadRefId: 'u1', cost: 7, lineItems: 3 })]);
    expect(monthly.insertBulk).toHaveBeenCalledWith('t1', [
      expect.objectContaining({ uploadRefId: 'u1', cost: 7, lineItems: 3, period: '202401' }),
    ]);
    expect(summary.deleteMany).toHaveBeenCalledWith('t1', { uploadRefId: 'u1' });
    expect(summary.insertBulk).toHaveBeenCalledWith('t1', [
      { uploadRefId: 'u1', providerName: 'aws', period: '202401', lineItems: 3, ...AMOUNTS_7 },
    ]);
    expect(keys.state('t1', 'u1')).toMatchObject({ dirtySince: null, lockedUntil: null });
  });

  it('leaves the recompute to the refresh already holding the upload’s lease', async () => {
    const { service, keys, lineItems } = rollupsWorld();
    keys.state('t1', 'u1').lockedUntil = new Date(Date.now() + 60_000);
    await service.refresh('t1', ['u1']);
    expect(lineItems.aggregate).not.toHaveBeenCalled();
    expect(keys.state('t1', 'u1').dirtySince).toBeInstanceOf(Date);
  });

  it('releases the lease when the recompute fails, so that the next refresh can take it', async () => {
    const { service, keys, lineItems } = rollupsWorld();
    lineItems.aggregate.mockRejectedValueOnce(new Error('database down'));
    await expect(service.refresh('t1', ['u1'])).rejects.toThrow('database down');
    expect(keys.state('t1', 'u1')).toMatchObject({ lockedUntil: null, dirtySince: expect.any(Date) });
  });

  // A write during the recompute bumps the generation: settling fails, the lease is given back and the loop recomputes.
  it('recomputes again when a write bumped the upload while it was being recomputed', async () => {
    const { service, keys, lineItems } = rollupsWorld();
    const compute = lineItems.aggregate.getMockImplementation() as (tenantId: string, pipeline: PipelineStage[]) => Promise<unknown[]>;
    lineItems.aggregate.mockImplementationOnce(async (tenantId, pipeline) => {
      await keys.bump('t1', 'u1'); // a concurrent write to the upload's line items
      return compute(tenantId, pipeline);
    });
    await service.refresh('t1', ['u1']);
    expect(lineItems.aggregate).toHaveBeenCalledTimes(2);
    expect(keys.state('t1', 'u1')).toMatchObject({ dirtySince: null, lockedUntil: null });
  });
});

describe('LoadTracker (a load keeps the rollups equal to its line items)', () => {
  const docs = [
    { providerName: 'aws', period: '202401', chargePeriodStart: new Date('2024-01-02T05:00:00Z'), cost: 1.25 },
    { providerName: 'aws', period: '202401', chargePeriodStart: new Date('2024-01-02T07:00:00Z'), cost: 2 },
  ];

  it('stores the sums made while loading, without reading the line items back, when the load was the upload’s only writer', async () => {
    const { service, keys, daily, monthly, lineItems } = rollupsWorld();
    const tracker = service.track('t1', 'u1');
    await tracker.touch();
    tracker.written(docs, docs.length);
    await tracker.touch();
    await tracker.finish();
    expect(lineItems.aggregate).not.toHaveBeenCalled();
    expect(daily.deleteMany).toHaveBeenCalledWith('t1', { uploadRefId: 'u1' });
    expect(daily.insertBulk).toHaveBeenCalledWith('t1', [
      expect.objectContaining({ uploadRefId: 'u1', cost: 3.25, lineItems: 2, chargePeriodStart: new Date('2024-01-02T00:00:00Z') }),
    ]);
    expect(monthly.insertBulk).toHaveBeenCalledWith('t1', [expect.objectContaining({ uploadRefId: 'u1', cost: 3.25, lineItems: 2 })]);
    expect(keys.state('t1', 'u1')).toMatchObject({ dirtySince: null, lockedUntil: null });
  });

  it('has the database sum the rows by resource of a load with more resources than it keeps in memory, and only those', async () => {
    const { service, daily, lineItems } = rollupsWorld();
    const tracker = service.track('t1', 'u1');
    await tracker.touch();
    const many = Array.from({ length: MAX_RESOURCE_ROWS + 1 }, (_, index) => ({ ...docs[0], resourceId: `r-${index}` }));
    tracker.written(many, many.length);
    await tracker.finish();
    // the daily level from the load's own sums, the rows by resource from the line items
    expect(lineItems.aggregate).not.toHaveBeenCalled();
    expect(lineItems.aggregateInto).toHaveBeenCalledWith('t1', resourceRowsPipeline({ uploadRefId: 'u1' }), expect.anything());
    expect(daily.insertBulk).toHaveBeenCalledWith('t1', [expect.objectContaining({ lineItems: MAX_RESOURCE_ROWS + 1 })]);
  });

  it('recomputes from the line items when another writer changed the upload during the load (a gap in the generations)', async () => {
    const { service, keys, daily, lineItems } = rollupsWorld();
    const tracker = service.track('t1', 'u1');
    await tracker.touch();
    tracker.written(docs, docs.length);
    await keys.bump('t1', 'u1'); // e.g. a delete by filter on the same upload
    await tracker.touch();
    await tracker.finish();
    expect(lineItems.aggregate).toHaveBeenCalledWith('t1', rollupPipeline('u1'), 'bulk');
    expect(daily.insertBulk).toHaveBeenLastCalledWith('t1', [expect.objectContaining({ cost: 7, lineItems: 3 })]);
    expect(keys.state('t1', 'u1').dirtySince).toBeNull();
  });

  it('recomputes from the line items when a batch was stored only in part (its sums would be wrong)', async () => {
    const { service, lineItems } = rollupsWorld();
    const tracker = service.track('t1', 'u1');
    await tracker.touch();
    tracker.written(docs, docs.length - 1);
    await tracker.finish();
    expect(lineItems.aggregate).toHaveBeenCalledWith('t1', rollupPipeline('u1'), 'bulk');
  });

  // The load's sums are stale when another write came: they are recomputed from the line items.
  it('recomputes when another write came while the load stored its sums, and clears the stale mark', async () => {
    const { service, keys, lineItems } = rollupsWorld();
    const tracker = service.track('t1', 'u1');
    await tracker.touch();
    tracker.written(docs, docs.length);
    keys.settle.mockImplementationOnce(async () => false);
    await tracker.finish();
    expect(lineItems.aggregate).toHaveBeenCalledWith('t1', rollupPipeline('u1'), 'bulk');
    expect(keys.state('t1', 'u1')).toMatchObject({ dirtySince: null, lockedUntil: null });
  });
});
