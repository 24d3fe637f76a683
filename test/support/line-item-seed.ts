import { CostLineItemRepository } from '../../apps/costasset/src/line-items/line-items.repository';
import { RollupsService } from '../../apps/costasset/src/rollups/rollups.service';
import type { Platform } from './platform';

export interface SeedItem {
  providerName: string;
  billingAccountId: string;
  billingAccountName?: string;
  category: string;
  region: string;
  period: string;
  cost: number;
  resourceId?: string;
  serviceName?: string;
  tags?: { group: string; key: string; value: string }[];
  /** When the charge starts (the day of the daily rollups and of forecasts); none by default. */
  chargePeriodStart?: Date;
  /** The upload the rows belong to (default `seed`). */
  uploadRefId?: string;
}

/**
 * Writes line items straight into costasset's collection (for tests of what reads them), then
 * refreshes the rollups of the uploads written to, as every write path does.
 */
export async function seedLineItems(platform: Platform, tenantId: string, items: SeedItem[]): Promise<void> {
  const repository = platform.costasset.app.get(CostLineItemRepository);
  const rollups = platform.costasset.app.get(RollupsService);
  const uploads = [...new Set(items.map((item) => item.uploadRefId ?? 'seed'))];
  await rollups.begin(tenantId, uploads);
  await repository.insertBulk(
    tenantId,
    items.map((item, index) => ({
      uploadRefId: 'seed',
      billingAccountName: item.billingAccountId,
      serviceName: item.category,
      // at most a thousand resources, each on many rows as in an export (one per row would make the
      // rows by resource as many as the line items, and a large seed's refresh ten times longer)
      resourceId: `r-${index % 1000}`,
      tags: [],
      currency: 'USD',
      billedCost: item.cost,
      billingCurrency: 'USD',
      ...item,
    })) as never,
  );
  await rollups.refresh(tenantId, uploads);
}
