import fc from 'fast-check';
import { Types } from 'mongoose';
import { comparableRows, openRollupStack } from '../../../../test/support/rollup-stack';
import { type TestDatabase } from '../../../../tools/embedded-mongo/test/test-database';
import { AllocationModel } from '../allocation/allocation-model';
import type { AllocationModels } from '../allocation/allocation-models';
import type { RollupWiring } from '../../../../test/support/rollup-wiring';
import { RollupAccumulator } from './rollup-accumulator';
import { monthlyRollupRow, resourcePipeline, resourceRowsPipeline, type RollupGroup } from './rollup-fields';

/**
 * The rows by resource of an upload (or of one part of it) come three ways: summed by a load in
 * its memory (RollupAccumulator), or, past what a load keeps, summed and written by the database
 * (`resourceRowsPipeline` through `aggregateInto`, the results never decoded by the service). On
 * random line items (fields null, missing or set; tags missing, null, empty or not), against a
 * database (the embedded store, or `MONGODB_URI`), the rows the database writes are the rows
 * `monthlyRollupRow` makes of its groups, and the rows a load makes in memory.
 */

const TENANT = 't-resource-rows';
const OTHER_TENANT = 't-resource-rows-other';
const optional = <T>(values: T[]) => fc.constantFrom<T | null | undefined>(...values, null, undefined);
const lineItem = fc.record({
  providerName: fc.constantFrom('aws', 'azure'),
  billingAccountId: optional(['111', '222']),
  serviceName: optional(['ec2', 's3']),
  region: optional(['us-east-1']),
  resourceId: optional(['i-1', 'i-2', 'vol-1']),
  period: fc.constantFrom('202401', '202402'),
  day: fc.integer({ min: 1, max: 28 }),
  cost: fc.integer({ min: -20, max: 400 }).map((quarters) => quarters / 4),
  billedCost: fc.option(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { nil: undefined }),
  tags: fc.option(
    fc.uniqueArray(
      fc.record({ key: fc.constantFrom('env', 'owner'), value: fc.constantFrom('a', 'prod') }).map((tag) => ({ group: 'default', ...tag })),
      { maxLength: 2, selector: (tag) => tag.key },
    ),
    { nil: null },
  ),
  tagsMissing: fc.boolean(),
  part: fc.constantFrom(0, 1),
});

describe('rows by resource written by the database, against a database', () => {
  let db: TestDatabase;
  let stack: RollupWiring;

  beforeAll(async () => {
    const models = { current: async () => AllocationModel.EMPTY } as unknown as AllocationModels;
    ({ db, ...stack } = await openRollupStack('resource_rows', models));
  }, 60_000);

  afterAll(async () => {
    await db?.close();
  });

  it('writes the rows monthlyRollupRow makes of the groups, and a load makes in memory, for an upload and for one part', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(lineItem, { minLength: 1, maxLength: 30 }), async (items) => {
        const { lineItems, levels } = stack;
        await Promise.all([lineItems, levels.resources].map((repository) => repository.deleteMany(TENANT, {})));
        const docs = items.map(({ day, tagsMissing, part, tags, ...fields }) => {
          const doc: Record<string, unknown> = { uploadRefId: 'u1', uploadPart: part };
          for (const [name, value] of Object.entries(fields)) if (value !== undefined) doc[name] = value;
          if (!tagsMissing) doc.tags = tags;
          doc.billingPeriod = fields.period;
          doc.chargePeriodStart = new Date(
            `${fields.period.slice(0, 4)}-${fields.period.slice(4)}-${String(day).padStart(2, '0')}T06:00:00Z`,
          );
          return doc;
        });
        await lineItems.insertBulk(TENANT, structuredClone(docs) as never[]);
        for (const match of [{ uploadRefId: 'u1' }, { uploadRefId: 'u1', uploadPart: 1 }]) {
          await levels.resources.deleteMany(TENANT, {});
          const written = await lineItems.aggregateInto(TENANT, resourceRowsPipeline(match), levels.resources);
          const rows = await levels.resources.find(TENANT, {});
          expect(rows).toHaveLength(written);
          expect(rows.every((row) => row._id instanceof Types.ObjectId && row.tenantId === TENANT)).toBe(true);
          const byDatabase = comparableRows(rows as unknown as Record<string, unknown>[]);

          const groups = await lineItems.aggregate<RollupGroup>(TENANT, resourcePipeline(match), 'bulk');
          const rowOf = (group: RollupGroup) => ({
            ...monthlyRollupRow(match.uploadRefId, group),
            ...(match.uploadPart === undefined ? {} : { uploadPart: match.uploadPart }),
            tenantId: TENANT,
          });
          expect(byDatabase).toEqual(comparableRows(groups.map(rowOf)));

          const inMemory = new RollupAccumulator();
          inMemory.add(docs.filter((doc) => match.uploadPart === undefined || doc.uploadPart === match.uploadPart));
          expect(byDatabase).toEqual(comparableRows((inMemory.resourceRows() ?? []).map(rowOf)));
        }
      }),
      { numRuns: 40 },
    );
  });

  it("writes the call's tenant into every row, never another's, and reads only the tenant's line items", async () => {
    const { lineItems, levels } = stack;
    await Promise.all([lineItems, levels.resources].map((repository) => repository.deleteMany(TENANT, {})));
    const item = { uploadRefId: 'u2', providerName: 'aws', resourceId: 'i-1', period: '202401', cost: 2 };
    await lineItems.insertBulk(TENANT, [{ ...item }] as never[]);
    await lineItems.insertBulk(OTHER_TENANT, [{ ...item, cost: 5 }] as never[]);
    // a pipeline that sets a tenant of its own is overruled by the call's
    const pipeline = [...resourceRowsPipeline({ uploadRefId: 'u2' }), { $set: { tenantId: OTHER_TENANT } }];
    expect(await lineItems.aggregateInto(TENANT, pipeline, levels.resources)).toBe(1);
    expect(await levels.resources.find(OTHER_TENANT, {})).toEqual([]);
    expect(await levels.resources.find(TENANT, { uploadRefId: 'u2' })).toEqual([expect.objectContaining({ cost: 2, lineItems: 1 })]);
    await lineItems.deleteMany(OTHER_TENANT, {});
  });
});
