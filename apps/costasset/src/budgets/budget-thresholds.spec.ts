import { Types } from 'mongoose';
import { AllocationModel } from '../allocation/allocation-model';
import { ProviderIdentity } from '../allocation/provider-identity';
import type { MessageBus } from '@lib/messaging';
import type { CurrencyService } from '../currency/currency.service';
import type { VisibilityService } from '../resource-groups/visibility.service';
import type { CostSource, CostView, RollupPlanner } from '../rollups/rollup-planner';
import { BudgetEvaluator, StoredBudget } from './budget-evaluator';
import { BudgetMonitor } from './budget-monitor';
import { CrossingKindMigration } from './crossing-kind-migration';
import type { BudgetRepository } from './budget.repository';
import type { ThresholdCrossingRepository } from './threshold-crossing.repository';
import type { CostassetEnvironment } from '../costasset.environment';
import { forecastSeries } from '../forecasting/forecast';
import { NotificationMessage, NotificationTopic, Notifier } from '../notifications/notifier';

/**
 * Budgets' threshold rules, with the line items, budgets and recorded crossings in memory: which
 * thresholds a period crosses (a percentage of the amount, in the corporate currency), and that the
 * `costasset.budget.threshold` event goes out once per budget, period and threshold.
 */

type Doc = Record<string, unknown>;

/** The filter operators the evaluator and the compiled scope expressions use. */
function matches(doc: Doc, filter: Doc): boolean {
  return Object.entries(filter).every(([key, condition]) => {
    if (key === '$and') return (condition as Doc[]).every((part) => matches(doc, part));
    if (key === '$or') return (condition as Doc[]).some((part) => matches(doc, part));
    const value = doc[key] as string | number;
    if (condition === null || typeof condition !== 'object') return value === condition;
    return Object.entries(condition as Record<string, string | number>).every(([operator, operand]) => {
      switch (operator) {
        case '$eq':
          return value === operand;
        case '$ne':
          return value !== operand;
        case '$gte':
          return value >= operand;
        case '$lte':
          return value <= operand;
        case '$in':
          return (operand as unknown as unknown[]).includes(value);
        default:
          throw new Error(`operator ${operator} not simulated`);
      }
    });
  });
}

interface LineItem {
  providerName: string;
  period: string;
  cost: number;
  billingAccountId?: string;
  chargePeriodStart?: Date;
}

/** The planner over in-memory line items: runs the evaluator's `$match` + `$group` by period. */
class FakePlanner {
  readonly lineItems: LineItem[] = [];
  readonly chosen: { filter: Doc; fields: readonly string[] }[] = [];
  source: CostSource = { source: 'rollup', rollupLevel: 'month' };

  async view(): Promise<CostView> {
    return { rollupsReady: true, exclusion: {}, allocation: AllocationModel.EMPTY, providers: ProviderIdentity.NONE };
  }

  async choose(_tenantId: string, filter: Doc, fields: readonly string[]): Promise<CostSource> {
    this.chosen.push({ filter, fields });
    return this.source;
  }

  async aggregate<R>(_tenantId: string, where: CostSource, pipeline: Doc[]): Promise<R[]> {
    expect(where).toBe(this.source);
    const [match, group] = pipeline as [{ $match: Doc }, { $group: { _id: unknown } }];
    const sums = new Map<string, number>();
    const matching = this.lineItems.filter((row) => matches(row as unknown as Doc, match.$match));
    if (group.$group._id === '$period') {
      expect(group.$group).toEqual({ _id: '$period', cost: { $sum: '$cost' } });
      for (const item of matching) sums.set(item.period, (sums.get(item.period) ?? 0) + item.cost);
      return [...sums].map(([period, cost]) => ({ _id: period, cost }) as R);
    }
    // by period and day of the window: { $cond: [{ $gte: ['$chargePeriodStart', windowStart] }, day, null] }
    const windowStart = ((group.$group._id as Doc).day as { $cond: [{ $gte: [string, Date] }] }).$cond[0].$gte[1];
    for (const item of matching) {
      const day =
        item.chargePeriodStart && item.chargePeriodStart >= windowStart ? item.chargePeriodStart.toISOString().slice(0, 10) : null;
      const key = JSON.stringify({ period: item.period, day });
      sums.set(key, (sums.get(key) ?? 0) + item.cost);
    }
    return [...sums].map(([key, cost]) => ({ _id: JSON.parse(key) as Doc, cost }) as R);
  }
}

const conversion = {
  corporateCurrency: 'USD',
  rateOf: (currency: string) => ({ USD: 1, EUR: 1.1 })[currency],
};

/** The clock of the tests that need one: 2026-11-27 (the budgets of 2024 lie in the past). */
const NOW = new Date('2026-11-27T10:00:00Z');

let budgetCount = 0;
const budgetOf = (overrides: Partial<StoredBudget> = {}): StoredBudget => ({
  _id: new Types.ObjectId(),
  tenantId: 't1',
  name: `budget ${++budgetCount}`,
  amount: 200,
  currency: 'USD',
  scopeExpr: 'providerName == "aws"',
  startPeriod: '202410',
  endPeriod: '202411',
  thresholds: [50, 80, 100],
  forecastThresholds: [],
  ...overrides,
});

function world() {
  const planner = new FakePlanner();
  const visibility = { budgetaryFilter: jest.fn(async (): Promise<Doc> => ({ providerName: { $eq: 'azure' } })) };
  const currency = { conversionFor: jest.fn(async () => conversion) };
  const evaluator = new BudgetEvaluator(
    planner as unknown as RollupPlanner,
    visibility as unknown as VisibilityService,
    currency as unknown as CurrencyService,
  );
  return { planner, visibility, currency, evaluator };
}

describe('BudgetEvaluator (thresholds crossed per period)', () => {
  it('lists every period of the budget with its actual, remaining and percentage of the amount, 0 for a period without cost', async () => {
    const { planner, evaluator } = world();
    planner.lineItems.push({ providerName: 'aws', period: '202410', cost: 150 }, { providerName: 'aws', period: '202410', cost: 61 });
    const budget = budgetOf();
    expect(await evaluator.units('t1', budget)).toEqual([
      {
        budgetId: String(budget._id),
        name: budget.name,
        period: '202410',
        amount: 200,
        actual: 211,
        remaining: -11,
        percentUsed: 105.5,
        thresholds: [50, 80, 100],
        thresholdsCrossed: [50, 80, 100],
        phase: 'past',
        forecast: 211,
        forecastLower: 211,
        forecastUpper: 211,
        forecastPercentUsed: 105.5,
        forecastThresholds: [],
        forecastThresholdsCrossed: [],
        currency: 'USD',
        source: 'rollup',
      },
      expect.objectContaining({ period: '202411', actual: 0, remaining: 200, percentUsed: 0, thresholdsCrossed: [], forecast: 0 }),
    ]);
  });

  it('crosses a threshold at exactly its percentage, not below', async () => {
    const { planner, evaluator } = world();
    planner.lineItems.push({ providerName: 'aws', period: '202410', cost: 99.98 }, { providerName: 'aws', period: '202411', cost: 100 });
    const [below, at] = await evaluator.units('t1', budgetOf());
    expect(below).toMatchObject({ percentUsed: 49.99, thresholdsCrossed: [] });
    expect(at).toMatchObject({ percentUsed: 50, thresholdsCrossed: [50] });
  });

  it('compares the money, not the rounded percentage: 99.99 of 200 is 49.995%, shown as 50 but not crossing 50%', async () => {
    const { planner, evaluator } = world();
    planner.lineItems.push({ providerName: 'aws', period: '202410', cost: 99.99 });
    const [unit] = await evaluator.units('t1', budgetOf());
    expect(unit).toMatchObject({ actual: 99.99, percentUsed: 50, thresholdsCrossed: [] });
  });

  it('compares thresholds as percentages of the amount, not as amounts', async () => {
    const { planner, evaluator } = world();
    planner.lineItems.push({ providerName: 'aws', period: '202410', cost: 80 });
    // 80 of 1000 is 8%: neither the 50% nor the 80% threshold, though the cost equals 80
    const [unit] = await evaluator.units('t1', budgetOf({ amount: 1000 }));
    expect(unit).toMatchObject({ percentUsed: 8, thresholdsCrossed: [] });
  });

  it('sums money to the cent, without floating-point residue', async () => {
    const { planner, evaluator } = world();
    planner.lineItems.push(
      { providerName: 'aws', period: '202410', cost: 0.1 },
      { providerName: 'aws', period: '202410', cost: 0.2 },
      { providerName: 'aws', period: '202410', cost: 0.005 },
    );
    const [unit] = await evaluator.units('t1', budgetOf({ amount: 0.61 }));
    expect(unit).toMatchObject({ actual: 0.31, remaining: 0.3, percentUsed: 50.82, thresholdsCrossed: [50] });
  });

  it('converts the amount into the corporate currency before comparing', async () => {
    const { planner, evaluator } = world();
    planner.lineItems.push({ providerName: 'aws', period: '202410', cost: 110 });
    const [unit] = await evaluator.units('t1', budgetOf({ amount: 100, currency: 'EUR' }));
    expect(unit).toMatchObject({ amount: 110, actual: 110, percentUsed: 100, thresholdsCrossed: [50, 80, 100], currency: 'USD' });
  });

  it('reports no percentage and crosses nothing for a zero amount', async () => {
    const { planner, evaluator } = world();
    planner.lineItems.push({ providerName: 'aws', period: '202410', cost: 5 });
    const [unit] = await evaluator.units('t1', budgetOf({ amount: 0 }));
    expect(unit).toMatchObject({ actual: 5, percentUsed: 0, thresholdsCrossed: [] });
  });

  it('counts only the cost inside the scope expression and the budget periods', async () => {
    const { planner, evaluator } = world();
    planner.lineItems.push(
      { providerName: 'aws', period: '202410', cost: 100 },
      { providerName: 'azure', period: '202410', cost: 1000 },
      { providerName: 'aws', period: '202409', cost: 1000 },
      { providerName: 'aws', period: '202412', cost: 1000 },
    );
    const units = await evaluator.units('t1', budgetOf());
    expect(units.map((unit) => [unit.period, unit.actual])).toEqual([
      ['202410', 100],
      ['202411', 0],
    ]);
    expect(planner.chosen[0].fields).toEqual(['period', 'cost']);
  });

  it('scopes a budget by its budgetary resource group when it names one', async () => {
    const { planner, evaluator, visibility } = world();
    planner.lineItems.push({ providerName: 'aws', period: '202410', cost: 100 }, { providerName: 'azure', period: '202410', cost: 40 });
    const [unit] = await evaluator.units('t1', budgetOf({ scopeExpr: undefined, scopeGroupId: 'azure-group' }));
    expect(visibility.budgetaryFilter).toHaveBeenCalledWith('t1', 'azure-group');
    expect(unit.actual).toBe(40);
  });

  it("narrows the actuals to the caller's visibility when one is given", async () => {
    const { planner, evaluator } = world();
    planner.lineItems.push(
      { providerName: 'aws', billingAccountId: 'mine', period: '202410', cost: 60 },
      { providerName: 'aws', billingAccountId: 'theirs', period: '202410', cost: 100 },
    );
    const [all] = await evaluator.units('t1', budgetOf());
    const [visible] = await evaluator.units('t1', budgetOf(), { billingAccountId: { $eq: 'mine' } });
    expect(all).toMatchObject({ actual: 160, thresholdsCrossed: [50, 80] });
    expect(visible).toMatchObject({ actual: 60, thresholdsCrossed: [] });
  });

  it('answers where the actuals were summed (rollups or line items), as the planner chose', async () => {
    const { planner, evaluator } = world();
    planner.source = { source: 'line-items', rollupLevel: null };
    const [unit] = await evaluator.units('t1', budgetOf());
    expect(unit.source).toBe('line-items');
  });
});

const duplicateKey = () =>
  Object.assign(new Error('E11000 duplicate key error'), {
    code: 11000,
    keyPattern: { tenantId: 1, budgetId: 1, period: 1, threshold: 1 },
  });

/** The unique index on (tenant, budget, period, threshold, kind), as the database enforces it; `notifiedAt` as the repository sets it. */
class FakeCrossings {
  readonly rows: (Doc & { _id: Types.ObjectId })[] = [];
  readonly create = jest.fn(async (tenantId: string, doc: Doc) => {
    const key = (row: Doc) => JSON.stringify([row.tenantId, row.budgetId, row.period, row.threshold, row.kind ?? 'actual']);
    const row = { _id: new Types.ObjectId(), tenantId, ...doc };
    if (this.rows.some((existing) => key(existing) === key(row))) throw duplicateKey();
    this.rows.push(row);
    return row;
  });
  readonly pending = jest.fn(async (tenantId: string) => this.rows.filter((row) => row.tenantId === tenantId && row.notifiedAt === null));
  readonly markNotified = jest.fn(async (_tenantId: string, id: Types.ObjectId, at: Date) => {
    const row = this.rows.find((existing) => existing._id.equals(id));
    if (row) row.notifiedAt = at;
  });
}

/** The notifier: every call, and what the notifications module promises (a repeated key sends nothing again). */
class FakeNotifier extends Notifier {
  readonly calls: { tenantId: string; topic: NotificationTopic; message: NotificationMessage; key: string }[] = [];
  readonly sentKeys = new Set<string>();
  failing = false;
  order?: string[];

  async notify(tenantId: string, topic: NotificationTopic, message: NotificationMessage, key: string): Promise<number> {
    this.order?.push('notify');
    this.calls.push({ tenantId, topic, message, key });
    if (this.failing) throw new Error('notifications store down');
    if (this.sentKeys.has(key)) return 0;
    this.sentKeys.add(key);
    return 1;
  }
}

function monitored(budgets: StoredBudget[]) {
  const { planner, evaluator } = world();
  const crossings = new FakeCrossings();
  const order: string[] = [];
  const published: Doc[] = [];
  const bus = {
    publish: jest.fn(async (_subject: string, event: Doc) => {
      order.push('publish');
      published.push(event);
    }),
    subscribe: jest.fn(),
  };
  const repository = {
    find: jest.fn(async (tenantId: string, filter: Doc) =>
      budgets.filter((budget) => budget.tenantId === tenantId && matches(budget as unknown as Doc, filter)),
    ),
    findById: jest.fn(
      async (tenantId: string, id: string) => budgets.find((budget) => budget.tenantId === tenantId && String(budget._id) === id) ?? null,
    ),
  };
  const notifier = new FakeNotifier();
  notifier.order = order;
  const monitor = new BudgetMonitor(
    bus as unknown as MessageBus,
    repository as unknown as BudgetRepository,
    crossings as unknown as ThresholdCrossingRepository,
    evaluator,
    { consoleUrl: 'https://corelite.example' } as CostassetEnvironment,
    notifier,
  );
  const ingest = (period: string, cost: number) => planner.lineItems.push({ providerName: 'aws', period, cost });
  const thresholds = (period: string) => published.filter((event) => event.period === period).map((event) => event.threshold);
  return { monitor, bus, crossings, repository, published, ingest, thresholds, order, notifier, planner };
}

describe('BudgetMonitor (threshold events)', () => {
  it('publishes nothing below the first threshold', async () => {
    const { monitor, ingest, published } = monitored([budgetOf()]);
    ingest('202410', 90);
    expect(await monitor.evaluate('t1', ['202410'])).toBe(0);
    expect(published).toEqual([]);
  });

  it('publishes each threshold once as the costs cross 50, 80 and 100%, never again for more cost', async () => {
    const budget = budgetOf({ name: 'AWS prod' });
    const { monitor, ingest, thresholds, published } = monitored([budget]);
    ingest('202410', 90);
    await monitor.evaluate('t1', ['202410']);
    ingest('202410', 20);
    expect(await monitor.evaluate('t1', ['202410'])).toBe(1);
    expect(thresholds('202410')).toEqual([50]);
    ingest('202410', 60);
    await monitor.evaluate('t1', ['202410']);
    expect(thresholds('202410')).toEqual([50, 80]);
    ingest('202410', 40);
    await monitor.evaluate('t1', ['202410']);
    ingest('202410', 1);
    expect(await monitor.evaluate('t1', ['202410'])).toBe(0);
    expect(await monitor.evaluate('t1', ['202410'])).toBe(0);
    expect(thresholds('202410')).toEqual([50, 80, 100]);
    expect(published[2]).toEqual({
      tenantId: 't1',
      budgetId: String(budget._id),
      budgetName: 'AWS prod',
      amount: 200,
      actual: 210,
      currency: 'USD',
      period: '202410',
      threshold: 100,
      percentUsed: 105,
      kind: 'actual',
      forecast: 210,
    });
  });

  it('publishes every threshold a single jump crosses, each once', async () => {
    const { monitor, ingest, thresholds } = monitored([budgetOf()]);
    ingest('202410', 500);
    expect(await monitor.evaluate('t1', ['202410'])).toBe(3);
    expect(thresholds('202410')).toEqual([50, 80, 100]);
  });

  it('crosses thresholds once per period: a new period fires them again', async () => {
    const { monitor, ingest, thresholds } = monitored([budgetOf()]);
    ingest('202410', 120);
    ingest('202411', 120);
    await monitor.evaluate('t1', ['202410']);
    expect(thresholds('202411')).toEqual([]);
    await monitor.evaluate('t1', ['202411']);
    expect(thresholds('202410')).toEqual([50]);
    expect(thresholds('202411')).toEqual([50]);
  });

  it('evaluates only the periods that changed, and only the budgets whose range holds them', async () => {
    const inRange = budgetOf();
    const outOfRange = budgetOf({ startPeriod: '202501', endPeriod: '202512' });
    const { monitor, ingest, repository, thresholds } = monitored([inRange, outOfRange]);
    ingest('202411', 200);
    await monitor.evaluate('t1', ['202410'], NOW);
    expect(thresholds('202411')).toEqual([]);
    expect(repository.find).toHaveBeenCalledWith('t1', {
      $or: [
        { startPeriod: { $lte: '202410' }, endPeriod: { $gte: '202410' } },
        { startPeriod: { $lte: '202611' }, endPeriod: { $gte: '202611' } },
      ],
    });
    expect(((await repository.find.mock.results[0].value) as StoredBudget[]).map((budget) => budget.name)).toEqual([inRange.name]);
  });

  it('evaluates every period of every budget when the change names no period', async () => {
    const { monitor, ingest, thresholds } = monitored([budgetOf()]);
    ingest('202411', 200);
    expect(await monitor.evaluate('t1', [])).toBe(3);
    expect(thresholds('202411')).toEqual([50, 80, 100]);
  });

  it('records the crossing before publishing, and publishes nothing when another instance recorded it first', async () => {
    const budget = budgetOf();
    const { monitor, ingest, crossings, published, order } = monitored([budget]);
    crossings.create.mockImplementation(async (tenantId: string, doc: Doc) => {
      order.push('record');
      if (doc.threshold === 80) throw duplicateKey();
      return { _id: new Types.ObjectId(), tenantId, ...doc };
    });
    ingest('202410', 170);
    expect(await monitor.evaluate('t1', ['202410'])).toBe(1);
    expect(published.map((event) => event.threshold)).toEqual([50]);
    expect(order).toEqual(['record', 'publish', 'notify', 'record']);
    expect(crossings.create).toHaveBeenCalledWith('t1', {
      budgetId: String(budget._id),
      period: '202410',
      kind: 'actual',
      threshold: 50,
      amount: 200,
      actual: 170,
      percentUsed: 85,
      forecast: 170,
      forecastLower: 170,
      forecastUpper: 170,
      currency: 'USD',
      notifiedAt: null,
    });
  });

  it('does not swallow a failure to record that is not a duplicate (the evaluation fails, nothing is published)', async () => {
    const { monitor, ingest, crossings, published } = monitored([budgetOf()]);
    crossings.create.mockRejectedValue(new Error('database down'));
    ingest('202410', 170);
    await expect(monitor.evaluate('t1', ['202410'])).rejects.toThrow('database down');
    expect(published).toEqual([]);
  });

  it('fires a budget without thresholds never', async () => {
    const { monitor, ingest, published } = monitored([budgetOf({ thresholds: [] })]);
    ingest('202410', 10_000);
    expect(await monitor.evaluate('t1', ['202410'])).toBe(0);
    expect(published).toEqual([]);
  });

  it('keeps tenants apart: another tenant’s change evaluates none of these budgets', async () => {
    const { monitor, ingest, published } = monitored([budgetOf()]);
    ingest('202410', 500);
    expect(await monitor.evaluate('t2', ['202410'])).toBe(0);
    expect(published).toEqual([]);
  });
});

/** Daily line items from `from` to `to` (ISO days, inclusive), the cost of the i-th day `costOf(i)`. */
function dailyItems(from: string, to: string, costOf: (i: number) => number, providerName = 'aws'): LineItem[] {
  const items: LineItem[] = [];
  for (
    let day = new Date(`${from}T00:00:00Z`), i = 0;
    day <= new Date(`${to}T00:00:00Z`);
    day = new Date(day.getTime() + 86_400_000), i++
  ) {
    const period = day.toISOString().slice(0, 7).replace('-', '');
    items.push({ providerName, period, cost: costOf(i), chargePeriodStart: new Date(day.getTime() + 3_600_000) });
  }
  return items;
}

/** 2026-10-01 … 2026-11-26: 57 days rising from 10 by 0.5 a day (the days before NOW, 2026-11-27). */
const TREND = (i: number) => 10 + 0.5 * i;
const trendDays = () => dailyItems('2026-10-01', '2026-11-26', TREND);
const cents = (value: number) => Math.round(value * 100) / 100;
/** What forecastSeries says of the trend's November, for comparison. */
function novemberOfTrend() {
  const values = trendDays().map((item) => item.cost);
  return forecastSeries(values, '2026-11-26', { windowDays: 56, months: 4 });
}

describe('BudgetEvaluator (forecasts)', () => {
  it("forecasts the current period's month end from the daily costs: the actual plus the predicted rest, 80% interval", async () => {
    const { planner, evaluator } = world();
    planner.source = { source: 'rollup', rollupLevel: 'day' };
    planner.lineItems.push(...trendDays());
    const [unit] = await evaluator.units('t1', budgetOf({ amount: 1000, startPeriod: '202611', endPeriod: '202611' }), null, NOW);
    const { monthEnd } = novemberOfTrend();
    const actual = cents(
      trendDays()
        .filter((item) => item.period === '202611')
        .reduce((sum, item) => sum + item.cost, 0),
    );
    expect(unit).toMatchObject({ period: '202611', phase: 'current', actual, source: 'rollup' });
    expect(unit.forecast).toBeCloseTo(actual + monthEnd.forecast - monthEnd.actual, 1);
    expect(unit.forecastLower).toBeCloseTo(actual + monthEnd.lower - monthEnd.actual, 1);
    expect(unit.forecastUpper).toBeCloseTo(actual + monthEnd.upper - monthEnd.actual, 1);
    // the trend goes on: the four days left of November cost more than four of its average days
    expect(unit.forecast! - actual).toBeGreaterThan(4 * TREND(56));
    expect(unit.forecastLower!).toBeLessThanOrEqual(unit.forecast!);
    expect(unit.forecastUpper!).toBeGreaterThanOrEqual(unit.forecast!);
    expect(unit.forecastPercentUsed).toBe(cents((unit.forecast! / 1000) * 100));
    // one aggregation, by period and day, over the daily level
    expect(planner.chosen).toHaveLength(1);
    expect(planner.chosen[0].fields).toEqual(['period', 'chargePeriodStart', 'cost']);
  });

  it('reads the days before the budget starts for the forecast, but counts none of them in an actual', async () => {
    const { planner, evaluator } = world();
    planner.lineItems.push(...trendDays());
    const units = await evaluator.units('t1', budgetOf({ amount: 1000, startPeriod: '202611', endPeriod: '202611' }), null, NOW);
    expect(units.map((unit) => unit.period)).toEqual(['202611']);
    expect(planner.chosen[0].filter).toEqual({
      $and: [{ providerName: { $eq: 'aws' } }, { period: { $gte: '202609', $lte: '202611' } }],
    });
  });

  it('answers the actual as the forecast of a past period, the model for the next 3 periods, and null beyond', async () => {
    const { planner, evaluator } = world();
    planner.lineItems.push(...trendDays());
    const units = await evaluator.units('t1', budgetOf({ amount: 1000, startPeriod: '202610', endPeriod: '202703' }), null, NOW);
    const byPeriod = Object.fromEntries(units.map((unit) => [unit.period, unit]));
    expect(byPeriod['202610']).toMatchObject({
      phase: 'past',
      forecast: byPeriod['202610'].actual,
      forecastLower: byPeriod['202610'].actual,
    });
    const { nextMonths } = novemberOfTrend();
    expect(byPeriod['202612'].phase).toBe('future');
    expect(byPeriod['202612'].forecast).toBeCloseTo(nextMonths[0].forecast, 1);
    expect(byPeriod['202702'].forecast).toBeCloseTo(nextMonths[2].forecast, 1);
    expect(byPeriod['202703']).toMatchObject({
      phase: 'future',
      forecast: null,
      forecastLower: null,
      forecastUpper: null,
      forecastPercentUsed: null,
    });
  });

  it('reads by period alone (the monthly level) when no period of the budget is current or within the horizon', async () => {
    const { planner, evaluator } = world();
    await evaluator.units('t1', budgetOf(), null, NOW);
    expect(planner.chosen[0].fields).toEqual(['period', 'cost']);
  });

  it('has no forecast for the current period without a day of cost in the last 8 weeks', async () => {
    const { planner, evaluator } = world();
    planner.lineItems.push(...dailyItems('2026-06-01', '2026-06-30', () => 10));
    const [unit] = await evaluator.units(
      't1',
      budgetOf({ startPeriod: '202611', endPeriod: '202611', forecastThresholds: [100] }),
      null,
      NOW,
    );
    expect(unit).toMatchObject({ actual: 0, forecast: null, forecastThresholdsCrossed: [] });
  });

  it('forecasts the whole current period from earlier days when it has no cost yet', async () => {
    const { planner, evaluator } = world();
    planner.lineItems.push(...dailyItems('2026-09-01', '2026-10-31', () => 10));
    const [unit] = await evaluator.units('t1', budgetOf({ startPeriod: '202611', endPeriod: '202611' }), null, NOW);
    expect(unit.actual).toBe(0);
    expect(unit.forecast).toBeCloseTo(300, 0);
  });

  it("crosses forecast thresholds on the current period's forecast only, comparing money", async () => {
    const { planner, evaluator } = world();
    planner.lineItems.push(...trendDays());
    const actualOfNovember = trendDays()
      .filter((item) => item.period === '202611')
      .reduce((sum, item) => sum + item.cost, 0);
    const [october, november] = await evaluator.units(
      't1',
      budgetOf({ amount: actualOfNovember + 50, startPeriod: '202610', endPeriod: '202611', forecastThresholds: [90, 100, 150] }),
      null,
      NOW,
    );
    expect(october).toMatchObject({ phase: 'past', forecastThresholds: [90, 100, 150], forecastThresholdsCrossed: [] });
    expect(november.percentUsed).toBeLessThan(100);
    expect(november).toMatchObject({ thresholdsCrossed: [50, 80], forecastThresholdsCrossed: [90, 100] });
  });

  it("narrows the daily costs the forecast reads to the caller's visibility", async () => {
    const { planner, evaluator } = world();
    planner.lineItems.push(...trendDays());
    const [all] = await evaluator.units('t1', budgetOf({ startPeriod: '202611', endPeriod: '202611' }), null, NOW);
    const [none] = await evaluator.units(
      't1',
      budgetOf({ startPeriod: '202611', endPeriod: '202611' }),
      { billingAccountId: { $eq: 'x' } },
      NOW,
    );
    expect(all.forecast).toBeGreaterThan(0);
    expect(none).toMatchObject({ actual: 0, forecast: null });
  });
});

describe('BudgetMonitor (forecast thresholds, kinds and notifications)', () => {
  /** November's actual (to the 26th) of the trend is 25 days' cost; its forecast a third more or so. */
  const actualOfNovember = () =>
    trendDays()
      .filter((item) => item.period === '202611')
      .reduce((sum, item) => sum + item.cost, 0);
  const forecastBudget = (overrides: Partial<StoredBudget> = {}) =>
    budgetOf({
      name: 'AWS prod',
      amount: cents(actualOfNovember() + 40),
      startPeriod: '202611',
      endPeriod: '202612',
      thresholds: [80, 100],
      forecastThresholds: [100],
      ...overrides,
    });

  it('fires "forecast to exceed 100%" while the actual is below, then "reached 100%" once the actual gets there, each once', async () => {
    const budget = forecastBudget();
    const { monitor, planner, published, notifier, crossings } = monitored([budget]);
    planner.lineItems.push(...trendDays());
    expect(await monitor.evaluate('t1', ['202611'], NOW)).toBe(2);
    expect(published.map((event) => [event.kind, event.threshold])).toEqual([
      ['actual', 80],
      ['forecast', 100],
    ]);
    expect(published[1]).toMatchObject({ period: '202611', percentUsed: expect.any(Number), forecast: expect.any(Number) });
    expect(published[1].percentUsed as number).toBeLessThan(100);
    expect(published[1].forecast as number).toBeGreaterThan(budget.amount);
    expect(notifier.calls.map((call) => call.key)).toEqual([
      `budget:${budget._id}:202611:actual:80`,
      `budget:${budget._id}:202611:forecast:100`,
    ]);
    expect(notifier.calls[1].topic).toEqual({ kind: 'budget', budgetId: String(budget._id) });
    expect(crossings.rows.every((row) => row.notifiedAt instanceof Date)).toBe(true);

    // more of the same: nothing new
    expect(await monitor.evaluate('t1', ['202611'], NOW)).toBe(0);
    // the actual reaches 100%: the actual crossing fires; the forecast one does not again
    planner.lineItems.push({ providerName: 'aws', period: '202611', cost: 60, chargePeriodStart: new Date('2026-11-27T01:00:00Z') });
    expect(await monitor.evaluate('t1', ['202611'], NOW)).toBe(1);
    expect(published.map((event) => `${event.kind}:${event.threshold}`)).toEqual(['actual:80', 'forecast:100', 'actual:100']);
    expect(notifier.calls.map((call) => call.key.split(':').slice(3).join(':'))).toEqual(['actual:80', 'forecast:100', 'actual:100']);
  });

  it('does not fire a forecast threshold the actual already reached', async () => {
    const { monitor, planner, published } = monitored([forecastBudget({ amount: 100, thresholds: [] })]);
    planner.lineItems.push(...trendDays());
    expect(await monitor.evaluate('t1', ['202611'], NOW)).toBe(0);
    expect(published).toEqual([]);
  });

  it("evaluates the current period's forecast thresholds after a change of an earlier period (the forecast reads its days)", async () => {
    const { monitor, planner, published } = monitored([forecastBudget({ thresholds: [] })]);
    planner.lineItems.push(...trendDays());
    expect(await monitor.evaluate('t1', ['202610'], NOW)).toBe(1);
    expect(published).toEqual([expect.objectContaining({ kind: 'forecast', threshold: 100, period: '202611' })]);
  });

  it('fires a forecast crossing once whatever the number of instances: the second instance finds it recorded', async () => {
    const budget = forecastBudget({ thresholds: [] });
    const first = monitored([budget]);
    first.planner.lineItems.push(...trendDays());
    const second = monitored([budget]);
    second.planner.lineItems.push(...trendDays());
    // one database: the second instance records into the first one's crossings
    (second.monitor as unknown as { crossings: FakeCrossings }).crossings = first.crossings;
    const [a, b] = await Promise.all([first.monitor.evaluate('t1', ['202611'], NOW), second.monitor.evaluate('t1', ['202611'], NOW)]);
    expect(a + b).toBe(1);
    expect(first.published.length + second.published.length).toBe(1);
    expect(first.notifier.calls.length + second.notifier.calls.length).toBe(1);
  });

  it('says the budget, its scope, the period, actual, forecast, threshold and amount, and links to the explorer', async () => {
    const budget = forecastBudget({ thresholds: [] });
    const { monitor, planner, notifier } = monitored([budget]);
    planner.lineItems.push(...trendDays());
    await monitor.evaluate('t1', ['202611'], NOW);
    const [{ message }] = notifier.calls;
    expect(message.title).toBe('Budget "AWS prod" forecast to exceed 100% in November 2026');
    expect(message.summary).toMatch(
      /^Budget "AWS prod" \(expression providerName == "aws"\) is forecast to exceed 100% of its [\d,.]+ USD in November 2026/,
    );
    expect(message.summary).toMatch(/month-end forecast is [\d,.]+ USD \(80% interval [\d,.]+ USD to [\d,.]+ USD\)/);
    expect(message.facts.map((fact) => fact.label)).toEqual(['Budget', 'Scope', 'Period', 'Threshold', 'Amount', 'Actual', 'Forecast']);
    expect(message.facts.find((fact) => fact.label === 'Threshold')?.value).toBe('forecast to exceed 100%');
    expect(message.facts.find((fact) => fact.label === 'Scope')?.value).toBe('expression providerName == "aws"');
    const link = new URL(message.link!);
    expect(`${link.origin}${link.pathname}`).toBe('https://corelite.example/explorer');
    expect(Object.fromEntries(link.searchParams)).toEqual({
      groupBy: 'serviceName',
      filter: 'providerName == "aws"',
      from: '2026-11-01',
      to: '2026-11-30',
      granularity: 'day',
    });
    expect(message.data).toEqual({
      budgetId: String(budget._id),
      budgetName: 'AWS prod',
      scope: { expr: 'providerName == "aws"' },
      period: '202611',
      kind: 'forecast',
      threshold: 100,
      amount: budget.amount,
      actual: cents(actualOfNovember()),
      percentUsed: expect.any(Number),
      forecast: expect.any(Number),
      forecastLower: expect.any(Number),
      forecastUpper: expect.any(Number),
      currency: 'USD',
    });
  });

  it('names a budgetary group scope and filters the explorer with its expression', async () => {
    const budget = forecastBudget({ scopeExpr: undefined, scopeGroupId: 'azure-group', thresholds: [80] });
    const { monitor, planner, notifier } = monitored([budget]);
    const visibility = (monitor as unknown as { evaluator: { visibility: Doc } }).evaluator.visibility;
    visibility.budgetaryExpression = jest.fn(async () => 'providerName == "azure"');
    planner.lineItems.push(...dailyItems('2026-10-01', '2026-11-26', TREND, 'azure'));
    await monitor.evaluate('t1', ['202611'], NOW);
    const [{ message }] = notifier.calls;
    expect(message.title).toBe('Budget "AWS prod" reached 80% in November 2026');
    expect(message.facts.find((fact) => fact.label === 'Scope')?.value).toBe('budgetary group "azure-group": providerName == "azure"');
    expect(new URL(message.link!).searchParams.get('filter')).toBe('providerName == "azure"');
    expect(message.data.scope).toEqual({ groupId: 'azure-group' });
  });

  it('keeps a crossing whose notification failed and notifies it at the next evaluation, same key, no second event', async () => {
    const budget = forecastBudget({ thresholds: [] });
    const { monitor, planner, notifier, crossings, published } = monitored([budget]);
    planner.lineItems.push(...trendDays());
    notifier.failing = true;
    expect(await monitor.evaluate('t1', ['202611'], NOW)).toBe(1);
    expect(crossings.rows).toEqual([expect.objectContaining({ kind: 'forecast', threshold: 100, notifiedAt: null })]);
    notifier.failing = false;
    expect(await monitor.evaluate('t1', ['202612'], NOW)).toBe(0);
    expect(published).toHaveLength(1);
    expect(notifier.calls.map((call) => call.key)).toEqual([
      `budget:${budget._id}:202611:forecast:100`,
      `budget:${budget._id}:202611:forecast:100`,
    ]);
    expect(notifier.calls[1].message).toEqual(notifier.calls[0].message);
    expect(crossings.rows[0].notifiedAt).toBeInstanceOf(Date);
    await monitor.evaluate('t1', ['202612'], NOW);
    expect(notifier.calls).toHaveLength(2);
  });

  it('retries a crossing without a kind (recorded before kinds) as an actual one', async () => {
    const budget = budgetOf({ name: 'old' });
    const { monitor, notifier, crossings } = monitored([budget]);
    crossings.rows.push({
      _id: new Types.ObjectId(),
      tenantId: 't1',
      budgetId: String(budget._id),
      period: '202410',
      threshold: 50,
      percentUsed: 60,
      notifiedAt: null,
    });
    await monitor.evaluate('t1', ['202410'], NOW);
    expect(notifier.calls.map((call) => call.key)).toEqual([`budget:${budget._id}:202410:actual:50`]);
  });

  it('never retries crossings recorded before notifications (no notifiedAt at all)', async () => {
    const budget = budgetOf();
    const { monitor, notifier, crossings } = monitored([budget]);
    crossings.rows.push({
      _id: new Types.ObjectId(),
      tenantId: 't1',
      budgetId: String(budget._id),
      period: '202410',
      threshold: 50,
      percentUsed: 60,
    });
    await monitor.evaluate('t1', ['202410'], NOW);
    expect(notifier.calls).toEqual([]);
  });
});

describe('CrossingKindMigration', () => {
  const repository = (legacy: string | undefined) => ({
    legacyIndex: jest.fn(async () => legacy),
    assignMissingKind: jest.fn(async () => 3),
    dropIndex: jest.fn(async () => undefined),
  });

  it('gives the crossings without a kind `actual`, then drops the unique index without kind', async () => {
    const crossings = repository('tenantId_1_budgetId_1_period_1_threshold_1');
    await new CrossingKindMigration(crossings as unknown as ThresholdCrossingRepository).onModuleInit();
    expect(crossings.assignMissingKind).toHaveBeenCalled();
    expect(crossings.dropIndex).toHaveBeenCalledWith('tenantId_1_budgetId_1_period_1_threshold_1');
    expect(crossings.assignMissingKind.mock.invocationCallOrder[0]).toBeLessThan(crossings.dropIndex.mock.invocationCallOrder[0]);
  });

  it('does nothing once the old index is gone', async () => {
    const crossings = repository(undefined);
    await new CrossingKindMigration(crossings as unknown as ThresholdCrossingRepository).onModuleInit();
    expect(crossings.assignMissingKind).not.toHaveBeenCalled();
    expect(crossings.dropIndex).not.toHaveBeenCalled();
  });
});
