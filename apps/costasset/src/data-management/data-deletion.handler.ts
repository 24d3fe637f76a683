import { JOB_TYPES } from '../jobs/job-types';
import { Injectable } from '@nestjs/common';
import { Types } from 'mongoose';
import { MessageBus } from '@lib/messaging';
import { TenantOwned, TenantRepository } from '@lib/persistence';
import { CostassetEnvironment } from '../costasset.environment';
import { JobContext, JobHandler, JobHandlerFor } from '../jobs/job-handler';
import { AssetRepository, CostLineItemRepository, UtilizationRepository } from '../line-items/line-items.repository';
import { RollupsService } from '../rollups/rollups.service';
import { DeletionRequestRepository } from './deletion-request.repository';
import { lineItemFilter } from './line-item-filter';
import { RowsRemoved } from './schemas/deletion-request.schema';


export interface DataDeletionPayload {
  requestId: string;
}

type Collection = keyof RowsRemoved;
type RowRepository = TenantRepository<TenantOwned>;

/**
 * Removes the rows of a deletion request in batches of ids, so that a cancellation (job
 * termination, checked by `progress`) stops it between two batches. Re-running is safe: each run
 * deletes what is still left and adds what it removed to the request's counters.
 */
@Injectable()
@JobHandlerFor(JOB_TYPES.dataDeletion)
export class DataDeletionHandler implements JobHandler<DataDeletionPayload> {
  readonly progressUnit = 'rows' as const;

  private readonly collections: [Collection, RowRepository][];

  constructor(
    private readonly requests: DeletionRequestRepository,
    private readonly bus: MessageBus,
    private readonly env: CostassetEnvironment,
    private readonly rollups: RollupsService,
    lineItems: CostLineItemRepository,
    assets: AssetRepository,
    utilization: UtilizationRepository,
  ) {
    this.collections = [
      ['costLineItems', lineItems as unknown as RowRepository],
      ['assets', assets as unknown as RowRepository],
      ['utilization', utilization as unknown as RowRepository],
    ];
  }


  async run({ tenantId, payload, progress }: JobContext<DataDeletionPayload>): Promise<Record<string, unknown>> {
    const id = new Types.ObjectId(payload.requestId);
    const request = await this.requests.findOneAndUpdate(
      tenantId,
      { _id: id, status: { $in: ['pending', 'running'] } },
      { $set: { status: 'running', startedAt: new Date() } },
    );
    if (!request) return { skipped: 'the request is no longer pending' };
    const filter = lineItemFilter(request.filters);
    const periods = await this.periods(tenantId, filter);
    let total = request.rowsRemoved;
    for (const [, repository] of this.collections) total += await repository.count(tenantId, filter);
    let done = request.rowsRemoved;
    await progress(done, total);
    // uploads emptied by an earlier run that crashed stay marked stale until the repair (docs/rollups.md)
    const uploads = await this.rollups.uploadsMatching(tenantId, filter);
    await this.rollups.begin(tenantId, uploads);
    try {
      for (const [name, repository] of this.collections) {
        for (;;) {
          const batch = await repository.find(tenantId, filter, { limit: this.env.DATA_DELETION_BATCH_SIZE }, { _id: 1 });
          if (batch.length === 0) break;
          const removed = await repository.deleteMany(tenantId, { _id: { $in: batch.map((row) => row._id) } });
          done += removed;
          await this.requests.updateOne(tenantId, { _id: id }, { $inc: { rowsRemoved: removed, [`removed.${name}`]: removed } });
          await progress(done, total);
        }
      }
    } finally {
      // also when cancelled part-way: the rollups follow what was removed
      await this.rollups.refresh(tenantId, uploads);
      if (done > request.rowsRemoved) await this.bus.publish('costasset.lineitems.changed', { tenantId, periods, reason: 'deletion' });
    }
    const finished = await this.requests.findOneAndUpdate(tenantId, { _id: id }, { $set: { finishedAt: new Date() } });
    await this.requests.updateOne(tenantId, { _id: id, status: 'running' }, { $set: { status: 'completed' } });
    return { rowsRemoved: finished?.rowsRemoved ?? done };
  }

  async onFailed({ tenantId, payload }: { tenantId: string; payload: DataDeletionPayload }, reason: string): Promise<void> {
    await this.requests.updateOne(
      tenantId,
      { _id: new Types.ObjectId(payload.requestId), status: { $in: ['pending', 'running'] } },
      { $set: { status: 'failed', error: reason } },
    );
    await this.stopped(tenantId, payload);
  }

  /** Terminating the job (POST /jobs/{jobId}/terminate) cancels its request, as POST /dataManagement/{id} does. */
  async onTerminated({ tenantId, payload }: { tenantId: string; payload: DataDeletionPayload }): Promise<void> {
    await this.requests.updateOne(
      tenantId,
      { _id: new Types.ObjectId(payload.requestId), status: { $in: ['pending', 'running'] } },
      { $set: { status: 'cancelled' } },
    );
    await this.stopped(tenantId, payload);
  }

  private async stopped(tenantId: string, payload: DataDeletionPayload): Promise<void> {
    await this.requests.updateOne(tenantId, { _id: new Types.ObjectId(payload.requestId) }, { $set: { finishedAt: new Date() } });
  }

  private async periods(tenantId: string, filter: Record<string, unknown>): Promise<string[]> {
    const [lineItems] = this.collections;
    const rows = await lineItems[1].aggregate<{ _id: string }>(tenantId, [{ $match: filter }, { $group: { _id: '$period' } }]);
    return rows.map((row) => row._id).filter(Boolean);
  }
}
