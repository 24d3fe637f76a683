import { SetMetadata } from '@nestjs/common';

export const HEAVY_ROUTE = 'http:heavy-route';

/**
 * A route whose database work grows with the tenant's data (pages and totals over line items,
 * cost queries, report executions, data summaries). Admission control serves at most
 * `HTTP_MAX_HEAVY_IN_FLIGHT` of these at once per instance, below the bound of every request
 * (`HTTP_MAX_IN_FLIGHT`), so that what it admits finishes within its time limits and cheap
 * routes stay served while heavy ones are refused.
 */
export const HeavyRoute = () => SetMetadata(HEAVY_ROUTE, true);
