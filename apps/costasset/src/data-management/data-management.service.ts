import { Injectable } from '@nestjs/common';
import { Types } from 'mongoose';
import { Principal } from '@lib/auth';
import { JobsService } from '../jobs/jobs.service';
import { CostLineItemRepository } from '../line-items/line-items.repository';
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

  accounts(principal: Principal): Promise<BillingAccountSummary[]> {
    return this.lineItems.aggregate<BillingAccountSummary>(principal.tenantId, [
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
    ]);
  }

  async filters(principal: Principal): Promise<DeletionFilterValues> {
    const [facets] = await this.lineItems.aggregate<{ accounts: FilterAccount[]; periods: { _id: string }[] }>(principal.tenantId, [
      {
        $facet: {
          accounts: [
            {
              $group: {
                _id: { providerName: '$providerName', billingAccountId: '$billingAccountId' },
                billingAccountName: { $max: '$billingAccountName' },
              },
            },
            { $sort: { '_id.providerName': 1, '_id.billingAccountId': 1 } },
            { $project: { _id: 0, providerName: '$_id.providerName', billingAccountId: '$_id.billingAccountId', billingAccountName: 1 } },
          ],
          periods: [{ $group: { _id: '$period' } }, { $sort: { _id: -1 } }],
        },
      },
    ]);
    const accounts = facets?.accounts ?? [];
    return {
      providers: [...new Set(accounts.map((account) => account.providerName))],
      accounts,
      periods: (facets?.periods ?? []).map((period) => period._id),
    };
  }
}
