/** The synthetic cost line items the benchmarks load: 5 providers, 12 periods, 20 categories, 30 regions. */
const PROVIDERS = ['aws', 'azure', 'gcp', 'oci', 'ibm'];
export const PERIODS = Array.from({ length: 12 }, (_, i) => `2024${String(i + 1).padStart(2, '0')}`);
const CATEGORIES = Array.from({ length: 20 }, (_, i) => `Category ${i}`);
const REGIONS = Array.from({ length: 30 }, (_, i) => `region-${i}`);

export function lineItem(i: number) {
  return {
    tenantId: 'default',
    uploadRefId: 'bench',
    providerName: PROVIDERS[i % PROVIDERS.length],
    billingAccountId: `acct-${i % 50}`,
    billingAccountName: `Account ${i % 50}`,
    assetAccountId: `sub-${i % 200}`,
    resourceId: `res-${i % 10_000}`,
    assetType: `type-${i % 40}`,
    category: CATEGORIES[i % CATEGORIES.length],
    serviceName: `service-${i % 60}`,
    region: REGIONS[i % REGIONS.length],
    period: PERIODS[i % PERIODS.length],
    // every dimension combination recurs on 28 days of its month, so rollups hold ~4% as many rows as there are line items at 1M
    chargePeriodStart: new Date(Date.UTC(2024, i % PERIODS.length, 1 + (Math.floor(i / 600) % 28), i % 24)),
    cost: ((i * 7919) % 10_000) / 100,
    currency: 'USD',
    billedCost: ((i * 7919) % 10_000) / 100,
    billingCurrency: 'USD',
    tags: [{ group: 'env', key: 'stage', value: i % 3 === 0 ? 'prod' : 'dev' }],
  };
}
