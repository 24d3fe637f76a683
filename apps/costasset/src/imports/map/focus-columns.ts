/**
 * The FOCUS cost-and-usage columns, 1.0 to 1.3, and the line-item field each one becomes. GPD cost
 * CSVs use the same names (docs/gpd-format.md#csv-files), so this one table serves GPD enrichment, the extension
 * flow's checks, the FOCUS import and the FOCUS export.
 */
export const FOCUS_VERSIONS = ['1.0', '1.1', '1.2', '1.3'] as const;
export type FocusVersion = (typeof FOCUS_VERSIONS)[number];

export type ColumnKind = 'text' | 'decimal' | 'date' | 'currency' | 'json' | 'tags';

export interface FocusColumn {
  name: string;
  /** The line-item field; absent for the provider columns, which the row reader handles itself. */
  field?: string;
  kind: ColumnKind;
  since: FocusVersion;
  /** Mandatory in the versions from `since` on (until `deprecatedIn`, when set). */
  mandatory?: boolean;
  /** Mandatory and never null: a null cell is a conformance warning. */
  notNull?: boolean;
  /** Still present, but superseded, from this version on. */
  deprecatedIn?: FocusVersion;
  allowed?: readonly string[];
  /** Names used by earlier drafts and exports (mapped on import). */
  aliases?: readonly string[];
}

export const SERVICE_CATEGORIES = [
  'AI and Machine Learning',
  'Analytics',
  'Business Applications',
  'Compute',
  'Databases',
  'Developer Tools',
  'Multicloud',
  'Identity',
  'Integration',
  'Internet of Things',
  'Management and Governance',
  'Media',
  'Migration',
  'Mobile',
  'Networking',
  'Security',
  'Storage',
  'Web',
  'Other',
] as const;

export const CHARGE_CATEGORIES = ['Usage', 'Purchase', 'Tax', 'Credit', 'Adjustment'] as const;

const USED_UNUSED = ['Used', 'Unused'] as const;

const c = (
  name: string,
  field: string | undefined,
  kind: ColumnKind,
  since: FocusVersion,
  extra: Partial<FocusColumn> = {},
): FocusColumn => ({
  name,
  ...(field ? { field } : {}),
  kind,
  since,
  ...extra,
});

export const FOCUS_COLUMNS: readonly FocusColumn[] = [
  c('AvailabilityZone', 'availabilityZone', 'text', '1.0'),
  c('BilledCost', 'billedCost', 'decimal', '1.0', { mandatory: true, notNull: true }),
  c('BillingAccountId', 'billingAccountId', 'text', '1.0', { mandatory: true, notNull: true }),
  c('BillingAccountName', 'billingAccountName', 'text', '1.0', { mandatory: true }),
  c('BillingAccountType', 'billingAccountType', 'text', '1.2'),
  c('BillingCurrency', 'billingCurrency', 'currency', '1.0', { mandatory: true, notNull: true }),
  c('BillingPeriodEnd', 'billingPeriodEnd', 'date', '1.0', { mandatory: true, notNull: true }),
  c('BillingPeriodStart', 'billingPeriodStart', 'date', '1.0', { mandatory: true, notNull: true }),
  c('CapacityReservationId', 'capacityReservationId', 'text', '1.1'),
  c('CapacityReservationStatus', 'capacityReservationStatus', 'text', '1.1', { allowed: USED_UNUSED }),
  c('ChargeCategory', 'chargeCategory', 'text', '1.0', { mandatory: true, notNull: true, allowed: CHARGE_CATEGORIES }),
  c('ChargeClass', 'chargeClass', 'text', '1.0', { mandatory: true, allowed: ['Correction'] }),
  c('ChargeDescription', 'chargeDescription', 'text', '1.0', { mandatory: true }),
  c('ChargeFrequency', 'chargeFrequency', 'text', '1.0', { allowed: ['One-Time', 'Recurring', 'Usage-Based'] }),
  c('ChargePeriodEnd', 'chargePeriodEnd', 'date', '1.0', { mandatory: true, notNull: true }),
  c('ChargePeriodStart', 'chargePeriodStart', 'date', '1.0', { mandatory: true, notNull: true }),
  c('CommitmentDiscountCategory', 'commitmentDiscountCategory', 'text', '1.0', { allowed: ['Spend', 'Usage'] }),
  c('CommitmentDiscountId', 'commitmentDiscountId', 'text', '1.0'),
  c('CommitmentDiscountName', 'commitmentDiscountName', 'text', '1.0'),
  c('CommitmentDiscountQuantity', 'commitmentDiscountQuantity', 'decimal', '1.1'),
  c('CommitmentDiscountStatus', 'commitmentDiscountStatus', 'text', '1.0', { allowed: USED_UNUSED }),
  c('CommitmentDiscountType', 'commitmentDiscountType', 'text', '1.0'),
  c('CommitmentDiscountUnit', 'commitmentDiscountUnit', 'text', '1.1'),
  c('ConsumedQuantity', 'consumedQuantity', 'decimal', '1.0', { aliases: ['UsageQuantity'] }),
  c('ConsumedUnit', 'consumedUnit', 'text', '1.0', { aliases: ['UsageUnit'] }),
  c('ContractedCost', 'contractedCost', 'decimal', '1.0', { mandatory: true, notNull: true }),
  c('ContractedUnitPrice', 'contractedUnitPrice', 'decimal', '1.0'),
  c('EffectiveCost', 'effectiveCost', 'decimal', '1.0', { mandatory: true, notNull: true }),
  c('InvoiceId', 'invoiceId', 'text', '1.2'),
  c('InvoiceIssuerName', 'invoiceIssuerName', 'text', '1.0', { mandatory: true, notNull: true, aliases: ['InvoiceIssuer'] }),
  c('ListCost', 'listCost', 'decimal', '1.0', { mandatory: true, notNull: true }),
  c('ListUnitPrice', 'listUnitPrice', 'decimal', '1.0'),
  c('PricingCategory', 'pricingCategory', 'text', '1.0', { allowed: ['Standard', 'Dynamic', 'Committed', 'Other'] }),
  c('PricingCurrency', 'pricingCurrency', 'currency', '1.2'),
  c('PricingCurrencyContractedUnitPrice', 'pricingCurrencyContractedUnitPrice', 'decimal', '1.2'),
  c('PricingCurrencyEffectiveCost', 'pricingCurrencyEffectiveCost', 'decimal', '1.2'),
  c('PricingCurrencyListUnitPrice', 'pricingCurrencyListUnitPrice', 'decimal', '1.2'),
  c('PricingQuantity', 'pricingQuantity', 'decimal', '1.0', { mandatory: true }),
  c('PricingUnit', 'pricingUnit', 'text', '1.0', { mandatory: true }),
  c('ProviderName', undefined, 'text', '1.0', { mandatory: true, notNull: true, deprecatedIn: '1.3', aliases: ['Provider'] }),
  c('PublisherName', 'publisherName', 'text', '1.0', { mandatory: true, notNull: true, deprecatedIn: '1.3', aliases: ['Publisher'] }),
  c('RegionId', 'region', 'text', '1.0', { aliases: ['Region'] }),
  c('RegionName', 'regionName', 'text', '1.0'),
  c('ResourceId', 'resourceId', 'text', '1.0'),
  c('ResourceName', 'resourceName', 'text', '1.0'),
  c('ResourceType', 'assetType', 'text', '1.0'),
  c('ServiceCategory', 'serviceCategory', 'text', '1.0', { mandatory: true, notNull: true, allowed: SERVICE_CATEGORIES }),
  c('ServiceName', 'serviceName', 'text', '1.0', { mandatory: true, notNull: true }),
  c('ServiceSubcategory', 'serviceSubcategory', 'text', '1.1'),
  c('SkuId', 'skuId', 'text', '1.0'),
  c('SkuMeter', 'skuMeter', 'text', '1.1'),
  c('SkuPriceDetails', 'skuPriceDetails', 'json', '1.1'),
  c('SkuPriceId', 'skuPriceId', 'text', '1.0'),
  c('SubAccountId', 'assetAccountId', 'text', '1.0'),
  c('SubAccountName', 'assetAccountName', 'text', '1.0'),
  c('SubAccountType', 'subAccountType', 'text', '1.2'),
  c('Tags', 'tags', 'tags', '1.0'),
  c('ServiceProviderName', 'serviceProviderName', 'text', '1.3', { mandatory: true, notNull: true }),
  c('HostProviderName', 'hostProviderName', 'text', '1.3'),
  c('AllocatedMethodId', 'allocatedMethodId', 'text', '1.3'),
  c('AllocatedMethodDetails', 'allocatedMethodDetails', 'json', '1.3'),
  c('AllocatedResourceId', 'allocatedResourceId', 'text', '1.3'),
  c('AllocatedResourceName', 'allocatedResourceName', 'text', '1.3'),
  c('AllocatedTags', 'allocatedTags', 'json', '1.3'),
  c('ContractApplied', 'contractApplied', 'json', '1.3'),
];

/** Not a FOCUS column: a row identifier some exports carry; kept as the line item's `sourceId`. */
export const ROW_ID_COLUMN = 'Id';

const versionIndex = (version: FocusVersion) => FOCUS_VERSIONS.indexOf(version);

/** The columns of one version: what an export of that version writes. */
export function columnsOf(version: FocusVersion): FocusColumn[] {
  return FOCUS_COLUMNS.filter((column) => versionIndex(column.since) <= versionIndex(version));
}

export function mandatoryColumnsOf(version: FocusVersion): FocusColumn[] {
  return columnsOf(version).filter(
    (column) => column.mandatory && !(column.deprecatedIn && versionIndex(column.deprecatedIn) <= versionIndex(version)),
  );
}

const byLowerName = new Map<string, FocusColumn>();
for (const column of FOCUS_COLUMNS) {
  byLowerName.set(column.name.toLowerCase(), column);
  for (const alias of column.aliases ?? []) byLowerName.set(alias.toLowerCase(), column);
}

/** The FOCUS column a header names, by exact name, alias, or case-insensitively. */
export function focusColumnOf(header: string): FocusColumn | undefined {
  return byLowerName.get(header.trim().toLowerCase());
}

export const isCustomColumn = (header: string) => /^x_/i.test(header.trim());

/** Columns whose presence tells a version apart from the one before it. */
const MARKERS: [FocusVersion, string[]][] = [
  [
    '1.3',
    [
      'ServiceProviderName',
      'HostProviderName',
      'AllocatedMethodId',
      'AllocatedMethodDetails',
      'AllocatedResourceId',
      'AllocatedResourceName',
      'AllocatedTags',
      'ContractApplied',
    ],
  ],
  [
    '1.2',
    [
      'InvoiceId',
      'PricingCurrency',
      'BillingAccountType',
      'SubAccountType',
      'PricingCurrencyContractedUnitPrice',
      'PricingCurrencyEffectiveCost',
      'PricingCurrencyListUnitPrice',
    ],
  ],
  [
    '1.1',
    [
      'CapacityReservationId',
      'CapacityReservationStatus',
      'CommitmentDiscountQuantity',
      'CommitmentDiscountUnit',
      'ServiceSubcategory',
      'SkuMeter',
      'SkuPriceDetails',
    ],
  ],
];

/** The version whose columns the header shows: the newest version one of whose new columns is present. */
export function detectVersion(headers: readonly string[]): FocusVersion {
  const present = new Set(headers.map((header) => focusColumnOf(header)?.name).filter(Boolean));
  for (const [version, markers] of MARKERS) if (markers.some((name) => present.has(name))) return version;
  return '1.0';
}

/** A version named by metadata or the caller (`1.2`, `v1.2`, `1.2.0`, `FOCUS 1.2`). */
export function parseVersion(text: string | undefined): FocusVersion | undefined {
  const match = text ? /(\d+)\.(\d+)/.exec(text) : null;
  const candidate = match ? `${match[1]}.${match[2]}` : undefined;
  return (FOCUS_VERSIONS as readonly string[]).includes(candidate ?? '') ? (candidate as FocusVersion) : undefined;
}
