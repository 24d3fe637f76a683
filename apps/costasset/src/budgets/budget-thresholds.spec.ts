import { Types } from 'mongoose';
import type { MessageBus } from '@lib/messaging';
import type { CurrencyService } from '../currency/currency.service';
import type { VisibilityService } from '../resource-groups/visibility.service';
import type { CostSource, RollupPlanner } from '../rollups/rollup-planner';
import { BudgetEvaluator, StoredBudget } from './budget-evaluator';
import { BudgetMonitor } from './budget-monitor';
import type { BudgetRepository } from './budget.repository';
import type { ThresholdCrossingRepository } from './threshold-crossing.repository';

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
}

/** The planner over in-memory line items: runs the evaluator's `$match` + `$group` by period. */
class FakePlanner {
  readonly lineItems: LineItem[] = [];
  readonly chosen: { filter: Doc; fields: readonly string[] }[] = [];
  source: CostSource = { source: 'rollup', rollupLevel: 'month' };

  async choose(_tenantId: string, filter: Doc, fields: readonly string[]): Promise<CostSource> {
    this.chosen.push({ filter, fields });
    return this.source;
  }

  async aggregate<R>(_tenantId: string, where: CostSource, pipeline: Doc[]): Promise<R[]> {
    expect(where).toBe(this.source);
    const [match, group] = pipeline as [{ $match: Doc }, { $group: Doc }];
    expect(group.$group).toEqual({ _id: '$period', cost: { $sum: '$cost' } });
    const sums = new Map<string, number>();
    for (const item of this.lineItems.filter((row) => matches(row as unknown as Doc, match.$match)))
      sums.set(item.period, (sums.get(item.period) ?? 0) + item.cost);
    return [...sums].map(([period, cost]) => ({ _id: period, cost }) as R);
  }
}

const conversion = {
  corporateCurrency: 'USD',
  rateOf: (currency: string) => ({ USD: 1, EUR: 1.1 })[currency],
};

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
        thresholdsCrossed: [50, 80, 100],
        currency: 'USD',
        source: 'rollup',
      },
      expect.objectContaining({ period: '202411', actual: 0, remaining: 200, percentUsed: 0, thresholdsCrossed: [] }),
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

/** The unique index on (tenant, budget, period, threshold), as the database enforces it. */
class FakeCrossings {
  readonly rows: Doc[] = [];
  readonly create = jest.fn(async (tenantId: string, doc: Doc) => {
    const key = (row: Doc) => JSON.stringify([row.tenantId, row.budgetId, row.period, row.threshold]);
    const row = { tenantId, ...doc };
    if (this.rows.some((existing) => key(existing) === key(row))) throw duplicateKey();
    this.rows.push(row);
    return row;
  });
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
  };
  const monitor = new BudgetMonitor(
    bus as unknown as MessageBus,
    repository as unknown as BudgetRepository,
    crossings as unknown as ThresholdCrossingRepository,
    evaluator,
  );
  const ingest = (period: string, cost: number) => planner.lineItems.push({ providerName: 'aws', period, cost });
  const thresholds = (period: string) => published.filter((event) => event.period === period).map((event) => event.threshold);
  return { monitor, bus, crossings, repository, published, ingest, thresholds, order };
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
    await monitor.evaluate('t1', ['202410']);
    expect(thresholds('202411')).toEqual([]);
    expect(repository.find).toHaveBeenCalledWith('t1', { startPeriod: { $lte: '202410' }, endPeriod: { $gte: '202410' } });
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
      return { tenantId, ...doc };
    });
    ingest('202410', 170);
    expect(await monitor.evaluate('t1', ['202410'])).toBe(1);
    expect(published.map((event) => event.threshold)).toEqual([50]);
    expect(order).toEqual(['record', 'publish', 'record']);
    expect(crossings.create).toHaveBeenCalledWith('t1', { budgetId: String(budget._id), period: '202410', threshold: 50, percentUsed: 85 });
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
