import { Injectable } from '@nestjs/common';
import { JobContext, JobHandler, JobHandlerFor } from '../jobs/job-handler';
import { JOB_TYPES } from '../jobs/job-types';
import { RollupsService } from '../rollups/rollups.service';

interface RebuildPayload {
  revision: number;
}

/**
 * Recomputes the allocation rows of every upload with the tenant's current allocation settings (the
 * job a change queues): `RollupsService.refreshAllocation`. Idempotent: another attempt recomputes
 * the uploads not yet at the current settings. Progress in uploads (each counted by month and by day).
 */
@Injectable()
@JobHandlerFor(JOB_TYPES.allocationRebuild)
export class AllocationRebuildHandler implements JobHandler<RebuildPayload> {
  readonly progressUnit = 'uploads' as const;

  constructor(private readonly rollups: RollupsService) {}

  async run(context: JobContext<RebuildPayload>): Promise<Record<string, unknown>> {
    const uploads = await this.rollups.refreshAllocation(context.tenantId, (done, total) => context.progress(done, total));
    return { revision: context.payload.revision, uploads };
  }
}
