import type { DeletionFilters } from './schemas/deletion-request.schema';

/**
 * The MongoDB filter selecting the rows of a deletion request. Cost line items, assets and
 * utilization all carry providerName, billingAccountId and period, so one filter fits the three.
 */
export function lineItemFilter(filters: DeletionFilters): Record<string, unknown> {
  const filter: Record<string, unknown> = {};
  if (filters.providerName) filter.providerName = filters.providerName;
  if (filters.billingAccountIds?.length) filter.billingAccountId = { $in: filters.billingAccountIds };
  if (filters.periodFrom || filters.periodTo) {
    filter.period = {
      ...(filters.periodFrom ? { $gte: filters.periodFrom } : {}),
      ...(filters.periodTo ? { $lte: filters.periodTo } : {}),
    };
  }
  return filter;
}
