import fc from 'fast-check';
import { openRollupStack } from '../../../../test/support/rollup-stack';
import { type TestDatabase } from '../../../../tools/embedded-mongo/test/test-database';
import { costsPipeline, CostsPlan, CostsSource, parseGroupings } from '../costs/costs-aggregation';
import { bucketExpression } from '../costs/costs-range';
import { CostLineItemRepository } from '../line-items/line-items.repository';
import { answeredFrom, CostSource, RollupPlanner } from '../rollups/rollup-planner';
import { RollupsService } from '../rollups/rollups.service';
import { AllocationModel } from './allocation-model';
import type { AllocationModels } from './allocation-models';

/**
 * The explorer's answer by a dimension and an activated tag, filtered by a dimension, is the same
 * from the rollups, from rollup rows made for the query while the rollups are stale, and from the
 * line items (every dimension computed per line item), on random line items and rules; and the
 * values of a dimension add up to the total.
 */

const TENANT = 't-allocation-planner';
const TAGS = [
  { group: 'default', key: 'env' },
  { group: 'team', key: 'owner' },
];
const lineItem = fc.record({
  providerName: fc.constantFrom('aws', 'azure'),
  serviceName: fc.constantFrom('ec2', 's3', 'support'),
  period: fc.constantFrom('202401', '202402'),
  day: fc.integer({ min: 1, max: 28 }),
  cost: fc.integer({ min: -20, max: 400 }).map((quarters) => quarters / 4),
  tags: fc.uniqueArray(
    fc.record({ tag: fc.constantFrom(...TAGS), value: fc.constantFrom('a', 'b', 'prod') }).map(({ tag, value }) => ({ ...tag, value })),
    { maxLength: 2, selector: (tag) => tag.key },
  ),
});
const rule = fc.record({
  expr: fc.constantFrom(
    "serviceName == 'support'",
    "tag('default', 'env' == 'prod')",
    "providerName == 'azure' && serviceName != 's3'",
    "tag('team', 'owner' != 'a')",
  ),
  value: fc.constantFrom('x', 'y', 'unallocated'),
});

describe('the planner on allocation dimensions, against a database', () => {
  let db: TestDatabase;
  let lineItems: CostLineItemRepository;
  let rollups: RollupsService;
  let planner: RollupPlanner;
  let allocation = AllocationModel.EMPTY;

  beforeAll(async () => {
    const models = { current: async () => allocation } as unknown as AllocationModels;
    ({ db, lineItems, rollups, planner } = await openRollupStack('allocation_planner', models));
  }, 60_000);

  afterAll(async () => {
    await db?.close();
  });

  it('answers the same from rollups, from rows made for the query, and from the line items', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(lineItem, { minLength: 1, maxLength: 50 }), fc.array(rule, { maxLength: 4 }), async (rows, rules) => {
        allocation = new AllocationModel({
          revision: 1,
          tagKeys: [{ group: 'team', key: 'owner' }],
          dimensions: [{ name: 'team', rules, defaultValue: 'unallocated' }],
        });
        await lineItems.deleteMany(TENANT, {});
        // as every write path does: the uploads are marked before their line items are written
        await rollups.begin(TENANT, ['u0', 'u1', 'u2']);
        await lineItems.insertBulk(
          TENANT,
          rows.map((row, index) => ({
            uploadRefId: `u${index % 3}`,
            providerName: row.providerName,
            serviceName: row.serviceName,
            period: row.period,
            billingPeriod: row.period,
            chargePeriodStart: new Date(`${row.period.slice(0, 4)}-${row.period.slice(4)}-${String(row.day).padStart(2, '0')}T06:00:00Z`),
            cost: row.cost,
            tags: row.tags,
          })) as never[],
        );
        await rollups.refresh(TENANT, ['u0', 'u1', 'u2']);

        const range = {
          form: 'period',
          from: '202401',
          to: '202402',
          granularity: 'month',
          buckets: ['202401', '202402'],
        } as CostsPlan['range'];
        const plan = (groupBy: string[], match: Record<string, unknown>): CostsPlan => ({
          range,
          groupBy: parseGroupings(groupBy),
          metric: 'cost',
          top: 50,
          match: { $and: [{ period: { $gte: '202401', $lte: '202402' } }, match] },
        });
        const answer = async (groupBy: string[], match: Record<string, unknown>, where: CostSource) => {
          const source: CostsSource =
            where.source === 'line-items'
              ? { name: 'line-items', rollupLevel: null, count: 1, bucket: bucketExpression }
              : { name: 'rollup', rollupLevel: where.rollupLevel, count: '$lineItems', bucket: bucketExpression };
          const out = await planner.aggregate<{ _id: Record<string, unknown>; amount: number; lineItems: number }>(
            TENANT,
            where,
            costsPipeline(plan(groupBy, match), source),
          );
          return Object.fromEntries(
            out
              .map((row) => [JSON.stringify([row._id.b, row._id.g0 ?? null, row._id.g1 ?? null]), [row.amount, row.lineItems]] as const)
              .sort(([a], [b]) => a.localeCompare(b)),
          );
        };
        // the allocation rows of one field answer the first two; the monthly rows (summarised but by service) the others
        const since = { chargePeriodStart: { $gte: new Date('2024-01-05T00:00:00Z') } };
        const cases: Array<[string[], Record<string, unknown>, string | undefined]> = [
          [['dimension:team'], {}, 'dimension:team'],
          [['dimension:team'], since, 'dimension:team'],
          [['tag:team:owner'], { $and: [since, { 'dimensions.team': { $ne: 'x' } }] }, undefined],
          [['tag:team:owner'], { providerName: { $eq: 'aws' } }, 'tag:team:owner'],
          [['dimension:team', 'tag:team:owner'], { 'dimensions.team': { $ne: 'y' } }, undefined],
          [['serviceName'], { $or: [{ 'dimensions.team': { $eq: 'x' } }, { providerName: { $eq: 'aws' } }] }, undefined],
        ];
        for (const [groupBy, match, narrow] of cases) {
          const reads = [
            ...groupBy.map((entry) =>
              entry.startsWith('dimension:') ? `dimensions.${entry.slice(10)}` : entry.startsWith('tag:') ? 'tags["team","owner"]' : entry,
            ),
            'cost',
            'period',
          ];
          const fromRollups = await planner.choose(TENANT, match, reads);
          const daily = JSON.stringify(match).includes('chargePeriodStart');
          expect(fromRollups).toMatchObject({ source: 'rollup', rollupLevel: daily ? 'day' : 'month' });
          expect(fromRollups.narrow).toBe(narrow);
          // a daily query on two allocation fields: the daily level keeps none, rows are made for it
          expect(fromRollups.transient).toBe(daily && narrow === undefined ? true : undefined);
          // a monthly one: the monthly rows that keep the allocation fields
          expect(fromRollups.allocated).toBe(!daily && narrow === undefined ? true : undefined);
          // of those, the summarised ones when the query reads no service (nor account or region)
          expect(fromRollups.summary).toBe(!daily && narrow === undefined && !groupBy.includes('serviceName') ? true : undefined);
          const expected = await answer(groupBy, match, fromRollups);
          await rollups.begin(TENANT, ['u0', 'u1', 'u2']);
          const transient = await planner.choose(TENANT, match, reads);
          const readsDimension = groupBy.some((entry) => entry.startsWith('dimension:')) || JSON.stringify(match).includes('dimensions.');
          expect(transient).toMatchObject(readsDimension ? { transient: true } : { source: 'line-items' });
          expect(answeredFrom(transient)).toBe('line-items');
          const viaTransient = await answer(groupBy, match, transient);
          const viaLineItems = await answer(groupBy, match, { source: 'line-items', rollupLevel: null, dimensions: ['team'] });
          await rollups.refresh(TENANT, ['u0', 'u1', 'u2']);
          for (const actual of [viaTransient, viaLineItems]) {
            expect(Object.keys(actual)).toEqual(Object.keys(expected));
            for (const key of Object.keys(expected)) {
              expect(actual[key][1]).toBe(expected[key][1]);
              expect(actual[key][0]).toBeCloseTo(expected[key][0], 9);
            }
          }
        }
        // every line item has one value of the dimension: the values add up to the total
        const total = rows.reduce((sum, row) => sum + row.cost, 0);
        const byTeam = await answer(['dimension:team'], {}, await planner.choose(TENANT, {}, ['dimensions.team', 'cost', 'period']));
        expect(Object.values(byTeam).reduce((sum, [amount]) => sum + amount, 0)).toBeCloseTo(total, 9);
      }),
      { numRuns: 15 },
    );
  }, 180_000);
});
