/** Plausible FOCUS 1.2 content for generated GPD archives (demo data, tests, benchmark). */
export interface ProviderProfile {
  providerName: string;
  providerCode: string;
  currency: string;
  resourceTypes: { type: string; service: string }[];
  regions: string[];
}

export const PROFILES: Record<string, ProviderProfile> = {
  aws: {
    providerName: 'aws',
    providerCode: 'AWS',
    currency: 'USD',
    resourceTypes: [
      { type: 'AmazonEC2', service: 'Amazon Elastic Compute Cloud' },
      { type: 'AmazonS3', service: 'Amazon Simple Storage Service' },
      { type: 'AmazonRDS', service: 'Amazon Relational Database Service' },
      { type: 'AWSLambda', service: 'AWS Lambda' },
    ],
    regions: ['us-east-1', 'eu-west-1', 'ap-southeast-2'],
  },
  azure: {
    providerName: 'azure',
    providerCode: 'AZURE',
    currency: 'EUR',
    resourceTypes: [
      { type: 'Microsoft.Compute/virtualMachines', service: 'Virtual Machines' },
      { type: 'Microsoft.Storage/storageAccounts', service: 'Storage' },
      { type: 'Microsoft.Sql/servers', service: 'SQL Database' },
    ],
    regions: ['westeurope', 'eastus', 'japaneast'],
  },
  gcp: {
    providerName: 'gcp',
    providerCode: 'GCP',
    currency: 'USD',
    resourceTypes: [
      { type: 'compute.googleapis.com/Instance', service: 'Compute Engine' },
      { type: 'storage.googleapis.com/Bucket', service: 'Cloud Storage' },
    ],
    regions: ['europe-west1', 'us-central1'],
  },
};

export const COST_HEADER = [
  'ChargePeriodStart',
  'ChargePeriodEnd',
  'BillingAccountId',
  'BillingAccountName',
  'SubAccountId',
  'SubAccountName',
  'ResourceId',
  'ResourceName',
  'ResourceType',
  'RegionId',
  'ServiceName',
  'ChargeCategory',
  'BilledCost',
  'EffectiveCost',
  'BillingCurrency',
  'PricingQuantity',
  'PricingUnit',
  'Tags',
];
export const ASSET_HEADER = ['ResourceId', 'ResourceName', 'ResourceType', 'RegionId', 'Tags'];
export const UTILIZATION_HEADER = ['ResourceId', 'Timestamp', 'Metric', 'Value', 'Unit'];

/** RFC 4180: quote a field when it holds a comma, a quote or a line break. */
export function csvLine(fields: (string | number)[]): string {
  return (
    fields
      .map((field) => {
        const value = String(field);
        return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
      })
      .join(',') + '\r\n'
  );
}

export function periodStart(period: string, day = 1): string {
  return `${period.slice(0, 4)}-${period.slice(4, 6)}-${String(day).padStart(2, '0')}T00:00:00Z`;
}

/** Deterministic row `index` of a cost file. */
export function costRow(profile: ProviderProfile, period: string, account: string, subAccount: string, index: number): (string | number)[] {
  const resource = profile.resourceTypes[index % profile.resourceTypes.length];
  const region = profile.regions[index % profile.regions.length];
  const day = (index % 28) + 1;
  const cost = ((index % 997) + 1) / 100;
  const resourceId = `${profile.providerName}-${account}-res-${index % 500}`;
  return [
    periodStart(period, day),
    periodStart(period, day).replace('T00:00:00Z', 'T23:59:59Z'),
    account,
    `Account ${account}`,
    subAccount,
    `Sub-account ${subAccount}`,
    resourceId,
    `resource ${index % 500}`,
    resource.type,
    region,
    resource.service,
    'Usage',
    cost.toFixed(2),
    (cost * 0.9).toFixed(4),
    profile.currency,
    (index % 24) + 1,
    'Hours',
    JSON.stringify({ 'team:owner': `team-${index % 5}`, 'env/stage': index % 2 ? 'prod' : 'dev', costcenter: `cc-${index % 3}` }),
  ];
}
