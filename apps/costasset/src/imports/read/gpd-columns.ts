import type { GpdFileKind } from './gpd-layout';

/** FOCUS 1.2 column names each GPD CSV must carry (docs/gpd-format.md#csv-files). */
export const REQUIRED_COLUMNS: Record<GpdFileKind, string[]> = {
  cost: ['ChargePeriodStart', 'ChargePeriodEnd', 'BillingAccountId', 'BillingAccountName', 'BilledCost', 'BillingCurrency', 'ServiceName'],
  asset: ['ResourceId', 'ResourceName', 'ResourceType', 'RegionId'],
  utilization: ['ResourceId', 'Timestamp', 'Metric', 'Value', 'Unit'],
};

export function missingColumns(kind: GpdFileKind, header: string[]): string[] {
  const present = new Set(header.map((column) => column.trim()));
  return REQUIRED_COLUMNS[kind].filter((column) => !present.has(column));
}
