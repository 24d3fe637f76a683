import { Injectable } from '@nestjs/common';
import { Types } from 'mongoose';
import { Principal } from '@lib/auth';
import { JobsService } from '../jobs/jobs.service';
import { CostLineItemRepository } from '../line-items/line-items.repository';
import { AccountSummaries } from './account-summaries';
import { DATA_DELETION_JOB } from './data-deletion.handler';
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

/** Deletion requests (contract §5) and the look-ups that populate their filters. */
@Injectable()
export class DataManagementService {
  constructor(
    private readonly requests: DeletionRequestRepository,
    private readonly jobs: JobsService,
    private readonly lineItems: CostLineItemRepository,
    private readonly summaries: AccountSummaries,
  ) {}

  async submit(principal: Principal, body: CreateDeletionRequestDto): Promise<DeletionRequestResponse> {
    const { providerName, billingAccountIds, periodFrom, periodTo } = body.filters;
    if (!providerName && !billingAccountIds?.length && !periodFrom && !periodTo) throw DataManagementProblems.noFilter();
    if (periodFrom && periodTo && periodFrom > periodTo) throw DataManagementProblems.periods();
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
      .submit(principal.tenantId, DATA_DELETION_JOB, { requestId: String(created._id) })
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

  async list(principal: Principal, limit: number, cursor?: string): Promise<DeletionRequestPage> {
    const page = await this.requests.page(principal.tenantId, {}, limit, cursor, 'newest');
    return { items: page.items.map(present), nextCursor: page.nextCursor };
  }

  /** A pending or running request becomes cancelled at once; its job stops before its next batch. */
  async cancel(principal: Principal, id: string): Promise<DeletionRequestResponse> {
    const current = await this.requests.findById(principal.tenantId, id);
    if (!current) throw DataManagementProblems.notFound(id);
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

  /** Bounded: see `AccountSummaries`. */
  accounts(principal: Principal): Promise<BillingAccountSummary[]> {
    return this.summaries.of(principal.tenantId);
  }

  /** Providers and accounts from the same summary; periods from the `tenantId + period` index alone (a distinct scan). */
  async filters(principal: Principal): Promise<DeletionFilterValues> {
    const [summary, periods] = await Promise.all([this.summaries.of(principal.tenantId), this.lineItems.distinct<string>(principal.tenantId, 'period')]);
    const accounts: FilterAccount[] = summary.map(({ providerName, billingAccountId, billingAccountName }) => ({ providerName, billingAccountId, billingAccountName }));
    return {
      providers: [...new Set(accounts.map((account) => account.providerName))],
      accounts,
      periods: periods.sort().reverse(),
    };
  }
}
