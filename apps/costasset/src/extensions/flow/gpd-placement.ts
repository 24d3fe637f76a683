import { METADATA_FILE, validateLayout } from '../../enrichment/gpd-layout';

export interface Placement {
  period: string;
  billingAccountId: string;
  /** Path of the cost file inside the GPD zip. */
  entryName: string;
}

/** The cost file of a (period, billing account) pair, named as the GPD layout wants it. */
export function costEntryName(period: string, billingAccountId: string): string {
  return `${period}/${billingAccountId}/C_${billingAccountId}_${period}01T000000Z.csv`;
}

/**
 * Where a mapped row goes in the GPD zip: the period folder comes from `ChargePeriodStart`
 * (UTC), the account folder from `BillingAccountId`; the names are checked by the GPD layout
 * rules themselves, so the generated file always passes them.
 */
export function placeRow(values: Record<string, string>): Placement | string {
  const start = values.ChargePeriodStart?.trim();
  const date = start ? new Date(start) : undefined;
  if (!date || Number.isNaN(date.getTime())) return `ChargePeriodStart "${start ?? ''}" is not a date`;
  const period = `${date.getUTCFullYear()}${String(date.getUTCMonth() + 1).padStart(2, '0')}`;
  const billingAccountId = values.BillingAccountId?.trim() ?? '';
  if (!billingAccountId) return 'BillingAccountId is empty';
  const entryName = costEntryName(period, billingAccountId);
  const layout = validateLayout([METADATA_FILE, entryName]);
  if (layout.errors.length > 0) return `BillingAccountId "${billingAccountId}" cannot name a GPD folder (${layout.errors[0].reason})`;
  return { period, billingAccountId, entryName };
}
