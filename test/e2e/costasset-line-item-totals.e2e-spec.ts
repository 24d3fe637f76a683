import { getModelToken } from '@nestjs/mongoose';
import { getMetadataStorage } from 'class-validator';
import type { Model } from 'mongoose';
import request from 'supertest';
import { ListAssetsQuery } from '../../apps/costasset/src/line-items/dto/list-assets.query';
import { ListCostLineItemsQuery } from '../../apps/costasset/src/line-items/dto/list-cost-line-items.query';
import { AssetRepository } from '../../apps/costasset/src/line-items/line-items.repository';
import { ASSET } from '../../apps/costasset/src/line-items/schemas/asset.schema';
import { COST_LINE_ITEM, LINE_ITEM_FILTER_INDEXED_FIELDS } from '../../apps/costasset/src/line-items/schemas/cost-line-item.schema';
import { expectSameTotals } from '../support/focus';
import { seedLineItems, SeedItem } from '../support/line-item-seed';
import { Platform, startPlatform } from '../support/platform';

const TOTALS = '/api/costasset/v1/costLineItems/totals';
/** Always true, and reads a tag: the planner never answers it from rollups. */
const ALWAYS_TRUE_ON_TAGS = `(tag('z', 'z' == 'z') || tag('z', 'z' != 'z'))`;
/** What a page asks for beside its filters (see TenantRepository.page). */
const PAGE_SIZE = 101;

/** The equality filters a list query DTO accepts: every validated property but paging and `expr`. */
function filtersOf(dto: new () => object): string[] {
  const names = getMetadataStorage()
    .getTargetValidationMetadatas(dto, '', true, false)
    .map((meta) => meta.propertyName);
  return [...new Set(names)].filter((name) => !['limit', 'cursor', 'expr'].includes(name)).sort();
}

/** Every stage of an explained plan (classic and SBE shapes alike). */
function stagesOf(plan: unknown, into: Record<string, unknown>[] = []): Record<string, unknown>[] {
  if (Array.isArray(plan)) plan.forEach((entry) => stagesOf(entry, into));
  else if (plan && typeof plan === 'object') {
    if ('stage' in plan) into.push(plan as Record<string, unknown>);
    Object.values(plan).forEach((value) => stagesOf(value, into));
  }
  return into;
}

const PROVIDERS = ['aws', 'azure', 'gcp'];
const CATEGORIES = ['Compute', 'Storage', 'Networking'];
const PERIODS = ['202409', '202410', '202411'];

/** Line items over two uploads, with cents that are not binary fractions and fields some rows lack. */
function items(): SeedItem[] {
  return Array.from({ length: 90 }, (_, index) => {
    const item: Record<string, unknown> = {
      providerName: PROVIDERS[index % 3],
      billingAccountId: `acct-${index % 4}`,
      category: CATEGORIES[(index % 5) % 3],
      region: index % 7 === 0 ? 'eu-west-1' : 'us-east-1',
      period: PERIODS[index % 3],
      billingPeriod: PERIODS[(index + 1) % 3],
      chargePeriodStart: new Date(
        `${PERIODS[index % 3].slice(0, 4)}-${PERIODS[index % 3].slice(4)}-${String((index % 27) + 1).padStart(2, '0')}T05:00:00Z`,
      ),
      cost: Math.round((index * 37.13 - 250) * 100) / 100 + 0.01,
      effectiveCost: index % 2 ? (index * 3) / 10 : undefined,
      listCost: index * 0.7,
      chargeCategory: index % 11 === 0 ? 'Credit' : 'Usage',
      invoiceId: `inv-${index % 2}`,
      uploadRefId: index % 2 ? 'upload-a' : 'upload-b',
    };
    // some rows lack the FOCUS service category: a missing key groups as null both ways
    if (index % 4) item.serviceCategory = index % 3 ? 'Compute' : 'Storage';
    if (index % 5) item.resourceId = `r-${index % 9}`;
    return item as unknown as SeedItem;
  });
}

describe('costasset line-item totals: answered from rollups when they can, served by indexes', () => {
  let platform: Platform;
  let admin: string;
  const totals = async (query: Record<string, string>) =>
    (await request(platform.costasset.url).get(TOTALS).query(query).set('corelite-token', admin).expect(200)).body;

  beforeAll(async () => {
    platform = await startPlatform();
    admin = await platform.token({ sub: 'admin' });
    const all = items();
    await seedLineItems(
      platform,
      'default',
      all.filter((item) => item.uploadRefId === 'upload-a'),
    );
    await seedLineItems(
      platform,
      'default',
      all.filter((item) => item.uploadRefId === 'upload-b'),
    );
    // an empty collection would let any plan win its trial: the planner must choose among rows
    await platform.costasset.app.get(AssetRepository).insertBulk(
      'default',
      all.map((item, index) => ({
        ...item,
        assetAccountId: `sub-${index % 5}`,
        resourceId: `r-${index}`,
        assetType: `type-${index % 6}`,
        tags: [],
      })) as never,
    );
    // the first query marks the tenant backfilled (every upload was rolled up as it was seeded)
    for (let attempt = 0; (await totals({})).source !== 'rollup'; attempt += 1) {
      if (attempt > 50) throw new Error('rollups never became ready');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
  afterAll(() => platform.close());

  it.each([
    [{}],
    [{ groupBy: 'providerName,serviceCategory' }],
    [{ groupBy: 'period,billingAccountId,category,region' }],
    [{ groupBy: 'billingPeriod,chargeCategory,billingCurrency', providerName: 'aws' }],
    [{ groupBy: 'serviceName', period: '202410', category: 'Compute', expr: 'region != "eu-west-1"' }],
    // the rows by resource
    [{ resourceId: 'r-3' }],
    [{ groupBy: 'providerName,period', resourceId: 'r-4', expr: 'region != "eu-west-1"' }],
  ])('answers %j from the rollups, with the line items’ figures', async (query: Record<string, string>) => {
    const fromRollups = await totals(query);
    const fromLineItems = await totals({ ...query, expr: query.expr ? `(${query.expr}) && ${ALWAYS_TRUE_ON_TAGS}` : ALWAYS_TRUE_ON_TAGS });
    expect([fromRollups.source, fromLineItems.source]).toEqual(['rollup', 'line-items']);
    // totals read no day: the monthly rollups answer
    expect([fromRollups.rollupLevel, fromLineItems.rollupLevel]).toEqual(['month', null]);
    expect(fromRollups.groups.length).toBeGreaterThan(0);
    expectSameTotals({ ...fromRollups, source: null, rollupLevel: null }, { ...fromLineItems, source: null, rollupLevel: null });
  });

  it('answers from the line items when a grouping or a filter is not rolled up', async () => {
    for (const query of <Record<string, string>[]>[
      { groupBy: 'invoiceId' },
      { groupBy: 'uploadRefId' },
      { resourceId: 'r-3', assetType: 'x' },
      { groupBy: 'providerName', assetType: 'x' },
    ]) {
      expect({ query, source: (await totals(query)).source }).toEqual({ query, source: 'line-items' });
    }
    const byInvoice = await totals({ groupBy: 'invoiceId' });
    const everything = await totals({});
    expect(byInvoice.groups.reduce((sum: number, group: { lineItems: number }) => sum + group.lineItems, 0)).toBe(90);
    expect(everything.groups).toEqual([expect.objectContaining({ key: {}, lineItems: 90 })]);
  });

  it.each([
    ['cost line items', ListCostLineItemsQuery, COST_LINE_ITEM],
    ['assets', ListAssetsQuery, ASSET],
  ])(
    'serves every filter of the %s list from an index, the selective ones from their own, led by the tenant',
    async (_name, dto, modelName) => {
      const model = platform.costasset.app.get<Model<unknown>>(getModelToken(modelName as string));
      // the indexes the start-up sync (mongoose autoIndex) builds, whatever the collection holds
      await model.init();
      const filters = filtersOf(dto as new () => object);
      expect(filters).toContain('resourceId');
      for (const field of filters) {
        const value = field.endsWith('eriod') ? '202410' : 'a-value';
        // the list's page (TenantRepository.page) and the totals' `$match`
        const page = await model
          .find({ [field]: value, tenantId: 'default' })
          .sort({ _id: 1 })
          .limit(PAGE_SIZE)
          .explain('queryPlanner');
        const stages = stagesOf((page as unknown as { queryPlanner: { winningPlan: unknown } }).queryPlanner.winningPlan);
        const scans = stages.filter((stage) => stage.stage === 'IXSCAN').map((stage) => Object.keys(stage.keyPattern as object));
        expect({ field, collscan: stages.some((stage) => stage.stage === 'COLLSCAN') }).toEqual({ field, collscan: false });
        // a selective filter: the tenant, then the field, so the scan reads the matching rows only
        if (
          modelName === ASSET ||
          (LINE_ITEM_FILTER_INDEXED_FIELDS as readonly string[]).includes(field) ||
          ['providerName', 'billingAccountId', 'uploadRefId', 'period'].includes(field)
        )
          expect({ field, scans: scans.map((keys) => keys.slice(0, 2)) }).toEqual({ field, scans: [['tenantId', field]] });
      }
    },
  );
});
