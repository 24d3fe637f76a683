import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InvalidatingCache, MessageBus } from '@lib/messaging';
import { Metrics } from '@lib/metrics';
import { CostLineItemRepository } from '../line-items/line-items.repository';
import type { BillingAccountSummary } from './dto/deletion-request.dto';

/** Most billing accounts a summary lists (the largest tenants hold hundreds). */
export const MAX_SUMMARY_ACCOUNTS = 10_000;
/** Bounds staleness should a `costasset.lineitems.changed` event be missed. */
const SUMMARY_TTL_MS = 10 * 60_000;

/**
 * The tenant's billing accounts with row counts and period ranges: one aggregation over all its
 * line items, so it is bounded rather than run per request. It runs at most once per tenant and
 * instance until line items change (`costasset.lineitems.changed`, published by every writer:
 * ingestion, cleanup, deletion, remediation, housekeeping), concurrent callers share one run,
 * the aggregation has its time limit like every other, and the answer holds at most
 * `MAX_SUMMARY_ACCOUNTS` accounts.
 */
@Injectable()
export class AccountSummaries implements OnModuleInit {
  private readonly logger = new Logger('AccountSummaries');
  private readonly cache: InvalidatingCache<BillingAccountSummary[]>;

  constructor(
    private readonly lineItems: CostLineItemRepository,
    private readonly bus: MessageBus,
    metrics: Metrics,
  ) {
    this.cache = new InvalidatingCache({ ttlMs: SUMMARY_TTL_MS, maxEntries: 1_000, observer: metrics.cacheObserver('account-summaries') });
  }

  onModuleInit(): void {
    this.bus
      .subscribe('costasset.lineitems.changed', (event) => this.cache.invalidate(event.tenantId))
      .catch((error: unknown) => this.logger.error({ err: error }, 'cannot subscribe to line item changes'));
  }

  of(tenantId: string): Promise<BillingAccountSummary[]> {
    return this.cache.getOrLoad(tenantId, () =>
      this.lineItems.aggregate<BillingAccountSummary>(tenantId, [
        {
          $group: {
            _id: { providerName: '$providerName', billingAccountId: '$billingAccountId' },
            billingAccountName: { $max: '$billingAccountName' },
            rows: { $sum: 1 },
            periodFrom: { $min: '$period' },
            periodTo: { $max: '$period' },
          },
        },
        { $sort: { '_id.providerName': 1, '_id.billingAccountId': 1 } },
        { $limit: MAX_SUMMARY_ACCOUNTS },
        {
          $project: {
            _id: 0,
            providerName: '$_id.providerName',
            billingAccountId: '$_id.billingAccountId',
            billingAccountName: 1,
            rows: 1,
            periodFrom: 1,
            periodTo: 1,
          },
        },
      ]),
    );
  }
}
