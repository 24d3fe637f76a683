import { CostLineItemRepository } from '../../apps/costasset/src/line-items/line-items.repository';
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
}

/** Writes line items straight into costasset's collection (for tests of what reads them). */
export async function seedLineItems(platform: Platform, tenantId: string, items: SeedItem[]): Promise<void> {
  const repository = platform.costasset.app.get(CostLineItemRepository);
  await repository.insertBulk(
    tenantId,
    items.map((item, index) => ({
      uploadRefId: 'seed',
      billingAccountName: item.billingAccountId,
      serviceName: item.category,
      resourceId: `r-${index}`,
      tags: [],
      currency: 'USD',
      billedCost: item.cost,
      billingCurrency: 'USD',
      ...item,
    })) as never,
  );
}
