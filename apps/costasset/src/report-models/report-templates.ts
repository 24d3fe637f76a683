import type { PipelineStage } from 'mongoose';

export const REPORT_TEMPLATE_IDS = [
  'cost-by-provider',
  'cost-by-service-category',
  'cost-by-account',
  'cost-by-region',
  'cost-trend',
  'cost-by-billing-period',
  'top-resources',
] as const;
export type ReportTemplateId = (typeof REPORT_TEMPLATE_IDS)[number];

interface ReportTemplate {
  /** The `_id` of the `$group` stage: one row per distinct value of these fields. */
  groupBy: Record<string, string>;
  sort: Record<string, 1 | -1>;
  limit?: number;
}

/** Each template is one aggregation over indexed fields, run by the database (docs/interface.md#resource-groups-report-models-budgets). */
const TEMPLATES: Record<ReportTemplateId, ReportTemplate> = {
  'cost-by-provider': { groupBy: { providerName: '$providerName' }, sort: { cost: -1 } },
  'cost-by-service-category': { groupBy: { category: '$category' }, sort: { cost: -1 } },
  'cost-by-account': { groupBy: { billingAccountId: '$billingAccountId', billingAccountName: '$billingAccountName' }, sort: { cost: -1 } },
  'cost-by-region': { groupBy: { region: '$region' }, sort: { cost: -1 } },
  'cost-trend': { groupBy: { period: '$period' }, sort: { '_id.period': 1 } },
  /** By the month the charges were billed (FOCUS BillingPeriodStart), beside `cost-trend` by the month they were incurred. */
  'cost-by-billing-period': { groupBy: { billingPeriod: '$billingPeriod' }, sort: { '_id.billingPeriod': 1 } },
  'top-resources': { groupBy: { resourceId: '$resourceId', providerName: '$providerName' }, sort: { cost: -1 }, limit: 20 },
};

export const MAX_REPORT_ROWS = 10_000;

/** The line-item fields a template groups by and sums (what decides whether rollups can answer it). */
export function templateFields(templateId: ReportTemplateId): string[] {
  return [...Object.keys(TEMPLATES[templateId].groupBy), 'cost'];
}

/**
 * `lineItemCount` is the `$sum` argument that counts line items: `1` over line items, the count
 * field over pre-summed rollup rows holding the same fields.
 */
export function reportPipeline(
  templateId: ReportTemplateId,
  filter: Record<string, unknown>,
  lineItemCount: 1 | string = 1,
): PipelineStage[] {
  const template = TEMPLATES[templateId];
  return [
    { $match: filter },
    { $group: { _id: template.groupBy, cost: { $sum: '$cost' }, lineItems: { $sum: lineItemCount } } },
    { $sort: template.sort },
    { $limit: Math.min(template.limit ?? MAX_REPORT_ROWS, MAX_REPORT_ROWS) },
  ] as PipelineStage[];
}

/** Cents are what a report shows; rounding once here keeps sums of floating-point costs stable. */
export const roundMoney = (amount: number) => Math.round(amount * 100) / 100;
