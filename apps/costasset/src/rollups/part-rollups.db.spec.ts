import { openRollupStack } from '../../../../test/support/rollup-stack';
import { AllocationModel } from '../allocation/allocation-model';
import type { AllocationModels } from '../allocation/allocation-models';
import { type TestDatabase } from '../../../../tools/embedded-mongo/test/test-database';
import type { CostLineItem } from '../line-items/schemas/cost-line-item.schema';
import type { RollupKeyRepository, RollupLevels } from './rollups.repository';
import { RollupsService } from './rollups.service';

const NO_ALLOCATION = { current: async () => AllocationModel.EMPTY } as unknown as AllocationModels;
const TENANT = 't-part-rollups';

function lineItem(uploadRefId: string, day: number, cost: number, serviceName: string) {
  return {
    uploadRefId,
    providerName: 'aws',
    billingAccountId: 'a1',
    billingAccountName: 'account a1',
    billingPeriod: '202410',
    period: '202410',
    serviceName,
    chargePeriodStart: new Date(`2024-10-${String(day).padStart(2, '0')}T03:00:00Z`),
    cost,
    billedCost: cost,
    effectiveCost: cost,
    listCost: cost,
    contractedCost: cost,
    billingCurrency: 'USD',
    currency: 'USD',
  } as unknown as Omit<CostLineItem, 'tenantId'>;
}

/**
 * The rollups of an upload loaded part by part (several jobs, each summing its own rows), against
 * a database (the embedded store, or `MONGODB_URI`): each part stores its rows beside the others',
 * and the upload's job takes them as current when nobody else wrote meanwhile, else recomputes.
 * Either way the rollups answer as a refresh from the line items does.
 */
describe('RollupsService: rollups stored part by part', () => {
  let db: TestDatabase;
  let rollups: RollupsService;
  let levels: RollupLevels;
  let keys: RollupKeyRepository;
  let lineItems: Awaited<ReturnType<typeof openRollupStack>>['lineItems'];

  beforeAll(async () => {
    ({ db, lineItems, rollups, levels, keys } = await openRollupStack('part_rollups', NO_ALLOCATION));
  }, 60_000);
  afterAll(async () => {
    await db?.close();
  });

  /** The daily rows of an upload summed by key, in key order: what any reader of the level gets. */
  async function dailyTotals(uploadRefId: string): Promise<string[]> {
    const rows = await levels.daily.find(TENANT, { uploadRefId });
    const sums = new Map<string, number>();
    for (const row of rows as unknown as Record<string, unknown>[]) {
      const key = JSON.stringify([row.day ?? row.chargePeriodStart, row.serviceName]);
      sums.set(key, (sums.get(key) ?? 0) + Number(row.cost));
    }
    return [...sums.entries()].map(([key, cost]) => `${key}=${cost.toFixed(6)}`).sort();
  }

  /** Loads the parts as the part jobs do; answers the generation the upload's job checks. */
  async function loadParts(uploadRefId: string, parts: Omit<CostLineItem, 'tenantId'>[][][]): Promise<number> {
    const start = rollups.track(TENANT, uploadRefId);
    await start.touch();
    let generation = start.lastGeneration ?? 0;
    for (const [index, batches] of parts.entries()) {
      const tracker = rollups.track(TENANT, uploadRefId);
      await tracker.touch();
      for (const batch of batches) {
        const stored = await lineItems.insertBulk(
          TENANT,
          batch.map((item) => ({ ...item, uploadPart: index })),
        );
        tracker.written(batch, stored);
        await tracker.touch();
      }
      await tracker.storePart(index);
      generation += tracker.parts.bumps;
    }
    return generation;
  }

  const parts = (uploadRefId: string) => [
    [[lineItem(uploadRefId, 1, 1.5, 'ec2'), lineItem(uploadRefId, 1, 2.25, 's3')], [lineItem(uploadRefId, 2, 3, 'ec2')]],
    [[lineItem(uploadRefId, 1, 0.75, 'ec2')], [lineItem(uploadRefId, 2, 1, 'ec2'), lineItem(uploadRefId, 3, 4, 's3')]],
  ];

  it('takes the parts’ rows as current when nobody else wrote: the same answers as a refresh, the upload no longer stale', async () => {
    const generation = await loadParts('u-alone', parts('u-alone'));
    expect(await rollups.settleParts(TENANT, 'u-alone', generation, true)).toBe(true);
    expect((await keys.findOne(TENANT, { uploadRefId: 'u-alone' }))?.dirtySince).toBeNull();
    const fromParts = await dailyTotals('u-alone');
    expect(await levels.daily.count(TENANT, { uploadRefId: 'u-alone', uploadPart: 1 })).toBeGreaterThan(0);
    await rollups.refresh(TENANT, ['u-alone']);
    expect(await dailyTotals('u-alone')).toEqual(fromParts);
    expect(fromParts).toEqual([
      '["2024-10-01T00:00:00.000Z","ec2"]=2.250000',
      '["2024-10-01T00:00:00.000Z","s3"]=2.250000',
      '["2024-10-02T00:00:00.000Z","ec2"]=4.000000',
      '["2024-10-03T00:00:00.000Z","s3"]=4.000000',
    ]);
  });

  it('recomputes from the line items when another write came meanwhile, or a part did not sum all it wrote', async () => {
    const generation = await loadParts('u-other', parts('u-other'));
    // another writer (a deletion) between the parts and the end
    await rollups.begin(TENANT, ['u-other']);
    await lineItems.deleteMany(TENANT, { uploadRefId: 'u-other', serviceName: 's3' });
    expect(await rollups.settleParts(TENANT, 'u-other', generation, true)).toBe(false);
    expect(await levels.daily.count(TENANT, { uploadRefId: 'u-other', uploadPart: { $exists: true } })).toBe(0);
    expect(await dailyTotals('u-other')).toEqual([
      '["2024-10-01T00:00:00.000Z","ec2"]=2.250000',
      '["2024-10-02T00:00:00.000Z","ec2"]=4.000000',
    ]);

    const incomplete = await loadParts('u-partial', parts('u-partial'));
    expect(await rollups.settleParts(TENANT, 'u-partial', incomplete, false)).toBe(false);
    expect((await keys.findOne(TENANT, { uploadRefId: 'u-partial' }))?.dirtySince).toBeNull();
  });
});
