import { JOB_TYPES } from '../jobs/job-types';
import { Injectable } from '@nestjs/common';
import { Types } from 'mongoose';
import { Principal } from '@lib/auth';
import { evaluateFilter } from '../expressions';
import { JobsService } from '../jobs/jobs.service';
import { VisibilityService } from '../resource-groups/visibility.service';
import { CostLineItemRepository } from '../line-items/line-items.repository';
import { RollupPlanner } from '../rollups/rollup-planner';
import { AccountSummaries } from './account-summaries';
import { DataManagementProblems } from './data-management.problems';
import { DeletionRequestRepository } from './deletion-request.repository';
import {
  BillingAccountSummary,
  CreateDeletionRequestDto,
  DeletionFilterValues,
  DeletionRequestPage,
  DeletionRequestResponse,
  FilterAccount,
} from './dto/deletion-request.dto';
import { DeletionRequest } from './schemas/deletion-request.schema';

type Stored = DeletionRequest & { _id: Types.ObjectId };

function present(request: Stored): DeletionRequestResponse {
  return {
    id: String(request._id),
    status: request.status,
    filters: request.filters,
    reason: request.reason,
    requestedBy: request.requestedBy,
    jobId: request.jobId,
    rowsRemoved: request.rowsRemoved,
    removed: request.removed,
    error: request.error,
    createdAt: (request.createdAt ?? new Date()).toISOString(),
    finishedAt: request.finishedAt?.toISOString(),
  };
}

const ACCOUNT_FIELDS: ReadonlySet<string> = new Set(['providerName', 'billingAccountId']);
const ownRequests = (principal: Principal) => (principal.isSystemAdmin ? {} : { requestedBy: principal.userId });

/**
 * Deletion requests and the look-ups that populate their filters. System Admins delete anything;
 * Cost Data Managers whole billing accounts within their visibility, and see their own requests.
 */
@Injectable()
export class DataManagementService {
  constructor(
    private readonly requests: DeletionRequestRepository,
    private readonly jobs: JobsService,
    private readonly lineItems: CostLineItemRepository,
    private readonly summaries: AccountSummaries,
    private readonly visibility: VisibilityService,
    private readonly planner: RollupPlanner,
  ) {}

  async submit(principal: Principal, body: CreateDeletionRequestDto): Promise<DeletionRequestResponse> {
    const { providerName, billingAccountIds, periodFrom, periodTo } = body.filters;
    if (!providerName && !billingAccountIds?.length && !periodFrom && !periodTo) throw DataManagementProblems.noFilter();
    if (periodFrom && periodTo && periodFrom > periodTo) throw DataManagementProblems.periods();
    await this.checkWithinVisibility(principal, providerName, billingAccountIds);
    const filters = Object.fromEntries(
      Object.entries({ providerName, billingAccountIds, periodFrom, periodTo }).filter(([, value]) => value !== undefined),
    );
    const created = await this.requests.create(principal.tenantId, {
      filters,
      reason: body.reason,
      requestedBy: principal.userId,
      status: 'pending',
      rowsRemoved: 0,
      removed: { costLineItems: 0, assets: 0, utilization: 0 },
    });
    const job = await this.jobs
      .submit(principal.tenantId, JOB_TYPES.dataDeletion, { requestId: String(created._id) }, principal)
      .catch(async (error: unknown) => {
        await this.requests.updateOne(
          principal.tenantId,
          { _id: created._id },
          { $set: { status: 'failed', error: 'the deletion job could not be started', finishedAt: new Date() } },
        );
        throw error;
      });
    const stored = await this.requests.findOneAndUpdate(principal.tenantId, { _id: created._id }, { $set: { jobId: job.jobId } });
    return present(stored ?? created);
  }

  /**
   * A caller whose visibility is limited deletes only whole billing accounts its visibility holds
   * whatever the other fields of their rows, so it must name them (with the provider, when its
   * visibility needs the provider to decide).
   */
  private async checkWithinVisibility(principal: Principal, providerName?: string, billingAccountIds?: string[]): Promise<void> {
    const filter = await this.visibility.filterFor(principal);
    if (filter === null) return;
    if (!billingAccountIds?.length) throw DataManagementProblems.accountsRequired();
    const known = new Set(providerName ? ['providerName', 'billingAccountId'] : ['billingAccountId']);
    const outside = billingAccountIds.filter(
      (billingAccountId) => evaluateFilter(filter, { providerName, billingAccountId }, known) !== true,
    );
    if (outside.length > 0) throw DataManagementProblems.outsideVisibility(outside);
  }

  /** Every request for a System Admin; the caller's own for anyone else. */
  async list(principal: Principal, limit: number, cursor?: string): Promise<DeletionRequestPage> {
    const page = await this.requests.page(principal.tenantId, ownRequests(principal), limit, cursor, 'newest');
    return { items: page.items.map(present), nextCursor: page.nextCursor };
  }

  /** A pending or running request becomes cancelled at once; its job stops before its next batch. */
  async cancel(principal: Principal, id: string): Promise<DeletionRequestResponse> {
    const current = await this.requests.findById(principal.tenantId, id);
    if (!current || (!principal.isSystemAdmin && current.requestedBy !== principal.userId)) throw DataManagementProblems.notFound(id);
    const cancelled = await this.requests.findOneAndUpdate(
      principal.tenantId,
      { _id: current._id, status: { $in: ['pending', 'running'] } },
      { $set: { status: 'cancelled' } },
    );
    if (!cancelled) {
      const now = await this.requests.findById(principal.tenantId, id);
      throw DataManagementProblems.notCancellable(now?.status ?? current.status);
    }
    if (cancelled.jobId) await this.jobs.terminate(principal.tenantId, cancelled.jobId);
    return present((await this.requests.findById(principal.tenantId, id)) ?? cancelled);
  }

  /** Bounded: see `AccountSummaries`. Only the accounts the caller could name in a request. */
  async accounts(principal: Principal): Promise<BillingAccountSummary[]> {
    const [summary, filter] = await Promise.all([this.summaries.of(principal.tenantId), this.visibility.filterFor(principal)]);
    if (filter === null) return summary;
    return summary.filter(
      ({ providerName, billingAccountId }) => evaluateFilter(filter, { providerName, billingAccountId }, ACCOUNT_FIELDS) === true,
    );
  }

  /** Providers and accounts from the same summary; periods from the `tenantId + period` index alone (a distinct scan). */
  async filters(principal: Principal): Promise<DeletionFilterValues> {
    const filter = await this.visibility.filterFor(principal);
    const [summary, periods] = await Promise.all([
      this.accounts(principal),
      this.planner
        .expandDimensions(principal.tenantId, filter ?? {})
        .then((expanded) => this.lineItems.distinct<string>(principal.tenantId, 'period', expanded)),
    ]);
    const accounts: FilterAccount[] = summary.map(({ providerName, billingAccountId, billingAccountName }) => ({
      providerName,
      billingAccountId,
      billingAccountName,
    }));
    return {
      providers: [...new Set(accounts.map((account) => account.providerName))],
      accounts,
      periods: periods.sort().reverse(),
    };
  }
}
