/**
 * Deterministic FOCUS rows built from the specification's columns (1.0–1.3), with the edges real
 * exports have: several providers in one file (AWS, Microsoft with resource-path account ids,
 * Oracle, Google Cloud), micro-costs such as 8e-7, credits and other negative amounts, 10+
 * decimals, NULL and empty cells, datetimes with and without `T`/`Z`, charges billed in the next
 * month, JSON Tags with keys without values and keys with leading spaces, `x_` custom columns.
 * Every value is text; amounts are exact decimal strings so that `FocusSums` can add them exactly.
 */
import { columnsOf, FocusVersion } from '../../apps/costasset/src/imports/map/focus-columns';

export type FocusCell = string | null;
export type FocusRow = Record<string, FocusCell>;

interface Service {
  name: string;
  category: string;
  subcategory: string;
  resourceType: string;
}

export interface ProviderProfile {
  key: string;
  providerName: string;
  currency: string;
  billingAccountId: string;
  billingAccountName: string;
  subAccounts: string[];
  regions: string[];
  services: Service[];
  resourceId(subAccount: string, region: string, index: number): string;
}

export const PROVIDERS: Record<string, ProviderProfile> = {
  aws: {
    key: 'aws',
    providerName: 'AWS',
    currency: 'USD',
    billingAccountId: '123456789012',
    billingAccountName: 'Payer',
    subAccounts: ['210987654321', '333344445555'],
    regions: ['us-east-1', 'eu-west-1'],
    services: [
      { name: 'Amazon Elastic Compute Cloud', category: 'Compute', subcategory: 'Virtual Machines', resourceType: 'Instance' },
      { name: 'Amazon Simple Storage Service', category: 'Storage', subcategory: 'Object Storage', resourceType: 'Bucket' },
      { name: 'Amazon Relational Database Service', category: 'Databases', subcategory: 'Relational', resourceType: 'DBInstance' },
    ],
    resourceId: (sub, region, index) => `arn:aws:ec2:${region}:${sub}:instance/i-${(index % 97).toString(16).padStart(8, '0')}`,
  },
  azure: {
    key: 'azure',
    providerName: 'Microsoft',
    currency: 'EUR',
    billingAccountId: '/providers/Microsoft.Billing/billingAccounts/12345678',
    billingAccountName: 'Contoso EA',
    subAccounts: ['/subscriptions/00000000-1111-2222-3333-444444444444', '/subscriptions/55555555-6666-7777-8888-999999999999'],
    regions: ['westeurope', 'northeurope'],
    services: [
      { name: 'Virtual Machines', category: 'Compute', subcategory: 'Virtual Machines', resourceType: 'Microsoft.Compute/virtualMachines' },
      { name: 'Storage', category: 'Storage', subcategory: 'Object Storage', resourceType: 'Microsoft.Storage/storageAccounts' },
      {
        name: 'Virtual Network',
        category: 'Networking',
        subcategory: 'Network Infrastructure',
        resourceType: 'Microsoft.Network/virtualNetworks',
      },
    ],
    resourceId: (sub, _region, index) => `${sub}/resourceGroups/rg prod/providers/Microsoft.Compute/virtualMachines/vm ${index % 31}`,
  },
  oci: {
    key: 'oci',
    providerName: 'Oracle',
    currency: 'USD',
    billingAccountId: 'ocid1.tenancy.oc1..aaaaaaaafocus',
    billingAccountName: 'Tenancy',
    subAccounts: ['ocid1.compartment.oc1..aaaaaaaaprod'],
    regions: ['eu-frankfurt-1'],
    services: [
      { name: 'Compute', category: 'Compute', subcategory: 'Virtual Machines', resourceType: 'Instance' },
      { name: 'Object Storage', category: 'Storage', subcategory: 'Object Storage', resourceType: 'Bucket' },
    ],
    resourceId: (_sub, region, index) => `ocid1.instance.oc1.${region}.anfocus${index % 53}`,
  },
  gcp: {
    key: 'gcp',
    providerName: 'Google Cloud',
    currency: 'USD',
    billingAccountId: '01ABCD-23EF45-678901',
    billingAccountName: 'Billing',
    subAccounts: ['my-project-123', 'projet-été'],
    regions: ['europe-west1'],
    services: [
      { name: 'Compute Engine', category: 'Compute', subcategory: 'Virtual Machines', resourceType: 'compute.googleapis.com/Instance' },
      { name: 'BigQuery', category: 'Analytics', subcategory: 'Data Warehouse', resourceType: 'bigquery.googleapis.com/Dataset' },
    ],
    resourceId: (sub, region, index) => `//compute.googleapis.com/projects/${sub}/zones/${region}-b/instances/vm-${index % 41}`,
  },
};

export type NullStyle = 'NULL' | 'empty' | 'mixed';

export interface RowOptions {
  version: FocusVersion;
  providers: string[];
  /** Billing periods (`YYYYMM`) the rows are spread over. */
  periods: string[];
  rows: number;
}

export const CUSTOM_COLUMNS = ['x_CostCenter', 'x_Note'];

/** The header of a file of that version: the specification's columns, then the custom ones. */
export function headerOf(version: FocusVersion): string[] {
  return [...columnsOf(version).map((column) => column.name), ...CUSTOM_COLUMNS];
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

function monthStart(period: string, offsetMonths = 0): Date {
  return new Date(Date.UTC(Number(period.slice(0, 4)), Number(period.slice(4, 6)) - 1 + offsetMonths, 1));
}

/** The three ways exports write a UTC datetime: `2024-09-18 22:00:00`, `2024-09-18T22:00:00Z`, `2024-09-18T22:00:00`. */
export function formatDate(date: Date, style: number): string {
  const day = `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
  const time = `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;
  return style === 0 ? `${day} ${time}` : style === 1 ? `${day}T${time}Z` : `${day}T${time}`;
}

/** An exact decimal string with up to 12 decimals, from integers only. */
function decimal(units: number, micro: number, negative = false): string {
  const text = `${Math.floor(units / 1000)}.${pad(units % 1000, 3)}${pad(micro, 9)}`.replace(/0+$/, '').replace(/\.$/, '');
  return negative && text !== '0' ? `-${text}` : text;
}

/**
 * Row `index` of a file. The period, provider and every edge are functions of the index, so the
 * same options always give the same file.
 */
export function focusRow(index: number, options: RowOptions): FocusRow {
  const profile = PROVIDERS[options.providers[index % options.providers.length]];
  const perPeriod = Math.ceil(options.rows / options.periods.length);
  const billingPeriod = options.periods[Math.min(options.periods.length - 1, Math.floor(index / perPeriod))];
  const service = profile.services[Math.floor(index / options.providers.length) % profile.services.length];
  const subAccount = profile.subAccounts[index % profile.subAccounts.length];
  const region = profile.regions[index % profile.regions.length];
  const billingStart = monthStart(billingPeriod);
  const billingEnd = monthStart(billingPeriod, 1);
  // a charge of the last evening of the previous month, billed in this one (and a TZ trap without offset)
  const lateCharge = index % 17 === 2;
  const start = lateCharge
    ? new Date(billingStart.getTime() - 2 * 3600_000)
    : new Date(billingStart.getTime() + ((index % 27) * 24 + (index % 24)) * 3600_000);
  const end = new Date(start.getTime() + 3600_000);
  const dateStyle = lateCharge ? 0 : index % 3;

  let chargeCategory = 'Usage';
  let chargeClass: FocusCell = null;
  let billed = decimal((index * 7919) % 250_000, (index * 104_729) % 1_000_000_000);
  let effective = billed;
  if (index % 7 === 3) billed = effective = index % 14 === 3 ? '8E-7' : '0.0000008';
  if (index % 13 === 5) {
    chargeCategory = 'Credit';
    billed = effective = decimal((index * 31) % 50_000, (index * 7) % 1_000_000_000, true);
  } else if (index % 29 === 7) {
    chargeCategory = 'Purchase';
    effective = '0';
  } else if (index % 31 === 11) {
    chargeCategory = 'Tax';
  }
  if (index % 37 === 9) chargeClass = 'Correction';
  const list = decimal((index * 8111) % 300_000, (index * 3571) % 1_000_000_000);
  const contracted = decimal((index * 7001) % 260_000, (index * 2791) % 1_000_000_000);
  const tax = chargeCategory === 'Tax';
  const resourceId = tax ? null : profile.resourceId(subAccount, region, index);
  const tags =
    index % 11 === 0
      ? null
      : JSON.stringify({
          'user:team': `team-${index % 5}`,
          env: index % 2 ? 'prod' : 'dev',
          ...(index % 4 === 1 ? { flagged: true } : {}),
          ...(index % 6 === 1 ? { ' spaced key': 'x' } : {}),
        });
  const quantity = decimal((index % 24) * 1000 + 1000, 0);
  const row: FocusRow = {
    AvailabilityZone: index % 5 === 0 ? null : `${region}-a`,
    BilledCost: billed,
    BillingAccountId: profile.billingAccountId,
    BillingAccountName: profile.billingAccountName,
    BillingAccountType: 'Billing Account',
    BillingCurrency: profile.currency,
    BillingPeriodEnd: formatDate(billingEnd, dateStyle),
    BillingPeriodStart: formatDate(billingStart, dateStyle),
    CapacityReservationId: index % 19 === 4 ? `cr-${index % 7}` : null,
    CapacityReservationStatus: index % 19 === 4 ? (index % 2 ? 'Used' : 'Unused') : null,
    ChargeCategory: chargeCategory,
    ChargeClass: chargeClass,
    ChargeDescription: `${service.name} ${chargeCategory.toLowerCase()} ${index}`,
    ChargeFrequency: chargeCategory === 'Purchase' ? 'One-Time' : 'Usage-Based',
    ChargePeriodEnd: formatDate(end, dateStyle),
    ChargePeriodStart: formatDate(start, dateStyle),
    CommitmentDiscountCategory: index % 23 === 6 ? 'Spend' : null,
    CommitmentDiscountId: index % 23 === 6 ? `${profile.key}:commitment/sp-${index % 3}` : null,
    CommitmentDiscountName: index % 23 === 6 ? `Savings plan ${index % 3}` : null,
    CommitmentDiscountQuantity: index % 23 === 6 ? '1.5' : null,
    CommitmentDiscountStatus: index % 23 === 6 ? 'Used' : null,
    CommitmentDiscountType: index % 23 === 6 ? 'Savings Plan' : null,
    CommitmentDiscountUnit: index % 23 === 6 ? 'Hours' : null,
    ConsumedQuantity: tax ? null : quantity,
    ConsumedUnit: tax ? null : 'Hours',
    ContractedCost: contracted,
    ContractedUnitPrice: tax ? null : '0.0416',
    EffectiveCost: effective,
    InvoiceId: `INV-${profile.key.toUpperCase()}-${billingPeriod}`,
    InvoiceIssuerName: profile.providerName,
    ListCost: list,
    ListUnitPrice: tax ? null : '0.0520',
    PricingCategory: tax ? null : 'Standard',
    PricingCurrency: profile.currency,
    PricingCurrencyContractedUnitPrice: tax ? null : '0.0416',
    PricingCurrencyEffectiveCost: effective,
    PricingCurrencyListUnitPrice: tax ? null : '0.0520',
    PricingQuantity: tax ? null : quantity,
    PricingUnit: tax ? null : 'Hours',
    ProviderName: profile.providerName,
    PublisherName: profile.providerName,
    RegionId: index % 9 === 4 ? null : region,
    RegionName: index % 9 === 4 ? null : region.toUpperCase(),
    ResourceId: resourceId,
    ResourceName: resourceId ? `resource ${index % 97}` : null,
    ResourceType: tax ? null : service.resourceType,
    ServiceCategory: service.category,
    ServiceName: service.name,
    ServiceSubcategory: service.subcategory,
    SkuId: `${profile.key}-sku-${index % 12}`,
    SkuMeter: 'Compute Usage',
    SkuPriceDetails: index % 8 === 2 ? JSON.stringify({ CoreCount: 4, OperatingSystem: 'Linux' }) : null,
    SkuPriceId: `${profile.key}-price-${index % 24}`,
    SubAccountId: subAccount,
    SubAccountName: `Account ${subAccount.slice(-6)} ☁`,
    SubAccountType: 'Subscription',
    Tags: tags,
    ServiceProviderName: profile.providerName,
    HostProviderName: profile.providerName,
    AllocatedMethodId: null,
    AllocatedMethodDetails: null,
    AllocatedResourceId: null,
    AllocatedResourceName: null,
    AllocatedTags: null,
    ContractApplied: null,
    x_CostCenter: index % 3 === 0 ? null : `cc-${index % 3}`,
    x_Note: index % 10 === 0 ? 'café ☕, "quoted"' : null,
  };
  return row;
}

/** A decimal string as an integer count of 1e-20: exact, independent of binary doubles. */
export function scaled(text: string): bigint {
  const match = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text.trim());
  if (!match) throw new Error(`not a decimal: ${text}`);
  const [, sign, whole, fraction = '', exponentText = '0'] = match;
  const exponent = Number(exponentText) - fraction.length + 20;
  const digits = BigInt(`${whole}${fraction}` || '0');
  const value = exponent >= 0 ? digits * 10n ** BigInt(exponent) : digits / 10n ** BigInt(-exponent);
  return sign === '-' ? -value : value;
}

export function unscaled(value: bigint): string {
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(21, '0');
  const text = `${digits.slice(0, -20)}.${digits.slice(-20)}`.replace(/0+$/, '').replace(/\.$/, '');
  return negative ? `-${text}` : text;
}

const AMOUNTS = ['BilledCost', 'EffectiveCost', 'ListCost', 'ContractedCost'] as const;

export interface Totals {
  rows: number;
  billedCost: string;
  effectiveCost: string;
  listCost: string;
  contractedCost: string;
}

/** The file's own sums, added exactly, grouped the ways an invoice and a report group them. */
export interface FocusSumsReport {
  rows: number;
  total: Totals;
  byProvider: Record<string, Totals>;
  byServiceCategory: Record<string, Totals>;
  byProviderAndServiceCategory: Record<string, Totals>;
  byInvoice: Record<string, Totals>;
  byBillingAccount: Record<string, Totals>;
  byBillingPeriod: Record<string, Totals>;
}

type Accumulator = { rows: number; sums: bigint[] };

export class FocusSums {
  private rows = 0;
  private readonly groups = new Map<string, Map<string, Accumulator>>();

  add(row: FocusRow): void {
    this.rows++;
    const amounts = AMOUNTS.map((column) => (row[column] ? scaled(row[column] as string) : 0n));
    const provider = (row.ServiceProviderName ?? row.ProviderName) as string;
    const keys: Record<string, string> = {
      total: '',
      byProvider: provider,
      byServiceCategory: row.ServiceCategory as string,
      byProviderAndServiceCategory: `${provider}|${row.ServiceCategory}`,
      byInvoice: String(row.InvoiceId),
      byBillingAccount: row.BillingAccountId as string,
      byBillingPeriod: (row.BillingPeriodStart as string).replace(/-/g, '').slice(0, 6),
    };
    for (const [group, key] of Object.entries(keys)) {
      let entries = this.groups.get(group);
      if (!entries) this.groups.set(group, (entries = new Map()));
      let accumulator = entries.get(key);
      if (!accumulator) entries.set(key, (accumulator = { rows: 0, sums: AMOUNTS.map(() => 0n) }));
      accumulator.rows++;
      amounts.forEach((amount, at) => ((accumulator as Accumulator).sums[at] += amount));
    }
  }

  report(): FocusSumsReport {
    const totals = ({ rows, sums }: Accumulator): Totals => ({
      rows,
      billedCost: unscaled(sums[0]),
      effectiveCost: unscaled(sums[1]),
      listCost: unscaled(sums[2]),
      contractedCost: unscaled(sums[3]),
    });
    const group = (name: string) =>
      Object.fromEntries([...(this.groups.get(name) ?? new Map()).entries()].map(([key, value]) => [key, totals(value)]));
    return {
      rows: this.rows,
      total: group('total')[''] ?? totals({ rows: 0, sums: AMOUNTS.map(() => 0n) }),
      byProvider: group('byProvider'),
      byServiceCategory: group('byServiceCategory'),
      byProviderAndServiceCategory: group('byProviderAndServiceCategory'),
      byInvoice: group('byInvoice'),
      byBillingAccount: group('byBillingAccount'),
      byBillingPeriod: group('byBillingPeriod'),
    };
  }
}
