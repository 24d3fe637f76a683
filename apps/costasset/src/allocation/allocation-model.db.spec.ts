import fc from 'fast-check';
import type { Model } from 'mongoose';
import { openTestDatabase, type TestDatabase } from '../../../../tools/embedded-mongo/test/test-database';
import { COST_LINE_ITEM, CostLineItem, CostLineItemSchema } from '../line-items/schemas/cost-line-item.schema';
import { CostLineItemRepository } from '../line-items/line-items.repository';
import { RollupAccumulator } from '../rollups/rollup-accumulator';
import { allocatedGroups, dimensionsKey, RollupGroup, rollupPipeline } from '../rollups/rollup-fields';
import { AllocationDefinitions, AllocationModel } from './allocation-model';

/**
 * The ways a model computes allocation (in memory while a load writes, per group of line items
 * the database grouped when rollups are recomputed, as a plain filter for what rollups cannot
 * answer) agree on random line items, tags and rules, against a database (the embedded store, or
 * `MONGODB_URI`); and the cost over every value of a dimension, the default included, is the total.
 */

const TENANT = 't-allocation-model';
const PROVIDERS = ['aws', 'AWS', 'azure'];
const SERVICES = ['ec2', 's3', 'vm'];
const TAGS = [
  { group: 'default', key: 'env' },
  { group: 'default', key: 'Env' },
  { group: 'team', key: 'owner' },
  { group: 'other', key: 'owner' },
];
const VALUES = ['prod', 'dev', 'a', 'b'];

const atom = fc.oneof(
  fc
    .record({
      field: fc.constantFrom('providerName', 'serviceName'),
      op: fc.constantFrom('==', '!='),
      value: fc.constantFrom(...PROVIDERS, ...SERVICES),
    })
    .map(({ field, op, value }) => `${field} ${op} '${value}'`),
  fc
    .record({ tag: fc.constantFrom(...TAGS), op: fc.constantFrom('==', '!='), value: fc.constantFrom(...VALUES) })
    .map(({ tag, op, value }) => `tag('${tag.group}', '${tag.key}' ${op} '${value}')`),
  fc.constant('true'),
);
const expression = fc.oneof(
  atom,
  fc.tuple(atom, atom).map(([a, b]) => `${a} && ${b}`),
  fc.tuple(atom, atom).map(([a, b]) => `(${a}) || !(${b})`),
);
const dimension = (name: string) =>
  fc.record({
    name: fc.constant(name),
    rules: fc.array(fc.record({ expr: expression, value: fc.constantFrom('x', 'y', 'z', 'unallocated') }), { maxLength: 5 }),
    defaultValue: fc.constantFrom('unallocated', 'x'),
  });
const definitions: fc.Arbitrary<AllocationDefinitions> = fc.record({
  revision: fc.constant(1),
  tagKeys: fc.subarray([
    { group: 'team', key: 'owner' },
    { group: null, key: 'env' },
  ]),
  dimensions: fc.tuple(dimension('team'), dimension('environment')).map((dimensions) => dimensions),
});
const lineItem = fc.record({
  providerName: fc.constantFrom(...PROVIDERS),
  serviceName: fc.constantFrom(...SERVICES),
  day: fc.integer({ min: 1, max: 3 }),
  cost: fc.integer({ min: -50, max: 500 }).map((cents) => cents / 4),
  tags: fc.uniqueArray(
    fc.record({ tag: fc.constantFrom(...TAGS), value: fc.constantFrom(...VALUES) }).map(({ tag, value }) => ({ ...tag, value })),
    { maxLength: 3, selector: (tag) => `${tag.group}/${tag.key}` },
  ),
});

describe('AllocationModel against a database', () => {
  let db: TestDatabase;
  let lineItems: CostLineItemRepository;

  beforeAll(async () => {
    db = await openTestDatabase('allocation_model');
    const model = db.conn.model<CostLineItem>(COST_LINE_ITEM, CostLineItemSchema);
    await model.init();
    lineItems = new CostLineItemRepository(model as Model<CostLineItem>);
  }, 60_000);

  afterAll(async () => {
    await db?.close();
  });

  it('computes the same tags and dimension values in memory, in aggregations and as filters', async () => {
    await fc.assert(
      fc.asyncProperty(definitions, fc.array(lineItem, { minLength: 1, maxLength: 60 }), async (settings, rows) => {
        const allocation = new AllocationModel(settings);
        const docs = rows.map((row, index) => ({
          uploadRefId: 'u1',
          providerName: row.providerName,
          serviceName: row.serviceName,
          period: '202401',
          billingPeriod: '202401',
          resourceId: `r${index}`,
          chargePeriodStart: new Date(Date.UTC(2024, 0, row.day, 5)),
          cost: row.cost,
          tags: row.tags,
        }));
        await lineItems.deleteMany(TENANT, {});
        await lineItems.insertBulk(TENANT, docs.map((doc) => ({ ...doc })) as never[]);

        // the rollup groups summed in memory equal those the database groups
        const inMemory = new RollupAccumulator(allocation);
        inMemory.add(docs);
        const byKey = (groups: RollupGroup[]) => {
          const keyed = groups.map((group) => [
            `${dimensionsKey(group._id)}|${group._id.day}`,
            { cost: group.cost, lineItems: group.lineItems },
          ]);
          expect(new Set(keyed.map(([key]) => key)).size).toBe(groups.length);
          return Object.fromEntries(keyed);
        };
        const fromDatabase = allocatedGroups(
          await lineItems.aggregate<RollupGroup>(TENANT, rollupPipeline('u1', allocation), 'bulk'),
          allocation,
        );
        expect(byKey(fromDatabase)).toEqual(byKey(inMemory.rows()));

        // a dimension condition expanded into rules selects the line items whose value it names
        for (const name of allocation.dimensionNames) {
          let total = 0;
          const values = new Set([...docs.map((doc) => allocation.dimensionValue(name, doc)), 'x', 'never']);
          for (const value of values) {
            const expected = docs.filter((doc) => allocation.dimensionValue(name, doc) === value).map((doc) => doc.resourceId);
            const equal = await lineItems.find(TENANT, allocation.expandDimensions({ [`dimensions.${name}`]: { $eq: value } }));
            const unequal = await lineItems.find(TENANT, allocation.expandDimensions({ [`dimensions.${name}`]: { $ne: value } }));
            expect(equal.map((doc) => doc.resourceId).sort()).toEqual(expected.sort());
            expect(unequal.length).toBe(docs.length - expected.length);
            total += equal.reduce((sum, doc) => sum + doc.cost, 0);
          }
          expect(total).toBeCloseTo(
            docs.reduce((sum, doc) => sum + doc.cost, 0),
            9,
          );
        }
      }),
      { numRuns: 25 },
    );
  }, 120_000);

  it('groups line items by the tags a classification reads, not by all of their tags', async () => {
    const allocation = new AllocationModel({
      revision: 1,
      tagKeys: [{ group: null, key: 'env' }],
      dimensions: [{ name: 'team', rules: [{ expr: "tag('team', 'owner' == 'a')", value: 'x' }], defaultValue: 'unallocated' }],
    });
    const row = (index: number, tags: { group: string; key: string; value: string }[]) => ({
      uploadRefId: 'u2',
      providerName: 'aws',
      period: '202401',
      resourceId: `r${index}`,
      chargePeriodStart: new Date(Date.UTC(2024, 0, 1)),
      cost: 1,
      tags,
    });
    const owner = (value: string) => ({ group: 'team', key: 'owner', value });
    await lineItems.deleteMany(TENANT, {});
    await lineItems.insertBulk(TENANT, [
      // differ only in tags nothing reads (another key, the same key in another group): one group
      row(1, [owner('a'), { group: 'default', key: 'cost-center', value: '1' }]),
      row(2, [owner('a'), { group: 'default', key: 'cost-center', value: '2' }, { group: 'other', key: 'owner', value: 'b' }]),
      // an activated key of any group, and the key a rule reads: a group each
      row(3, [owner('a'), { group: 'cloud', key: 'env', value: 'prod' }]),
      row(4, [owner('b')]),
    ] as never[]);
    const groups = await lineItems.aggregate<RollupGroup>(TENANT, rollupPipeline('u2', allocation), 'bulk');
    const read = groups.map((group) => ({ tags: group._id.tags, lineItems: group.lineItems }));
    expect(read).toHaveLength(3);
    expect(read).toEqual(
      expect.arrayContaining([
        { tags: [owner('a')], lineItems: 2 },
        { tags: [owner('a'), { group: 'cloud', key: 'env', value: 'prod' }], lineItems: 1 },
        { tags: [owner('b')], lineItems: 1 },
      ]),
    );
    const classified = allocatedGroups(groups, allocation).map((group) => ({ ...group._id, lineItems: group.lineItems }));
    expect(classified).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ tags: [], dimensions: { team: 'x' }, lineItems: 2 }),
        expect.objectContaining({ tags: [{ group: 'cloud', key: 'env', value: 'prod' }], dimensions: { team: 'x' }, lineItems: 1 }),
        expect.objectContaining({ tags: [], dimensions: { team: 'unallocated' }, lineItems: 1 }),
      ]),
    );
  });
});
