import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { TenantRepository } from '@lib/persistence';
import { JOB, JobRecord, JobStatus } from './schemas/job.schema';

export type Job = JobRecord & { _id: unknown };
type EndFields = { error?: string; result?: Record<string, unknown>; handoff?: Record<string, unknown> };
const SWEEP_LIMIT = 100;

@Injectable()
export class JobsRepository extends TenantRepository<JobRecord> {
  constructor(@InjectModel(JOB) model: Model<JobRecord>) {
    super(model);
  }

  /**
   * Ends the job with `status`, if it is not ended yet. `cleanup`: its handler's clean-up is still
   * to run (`cleanupDone` clears it), so that a clean-up interrupted by an outage is run again.
   */
  async end(tenantId: string, jobId: string, status: JobStatus, fields: EndFields, cleanup = false, run?: number): Promise<Job | null> {
    const progress = status === 'succeeded' || status === 'completed_with_errors' ? { 'progress.percent': 100 } : {};
    return this.findOneAndUpdate(
      tenantId,
      { jobId, status: { $in: ['queued', 'running'] }, ...(run === undefined ? {} : { run }) },
      { $set: { status, finishedAt: new Date(), ...fields, ...progress, ...(cleanup ? { cleanupPending: true } : {}) } },
    );
  }

  async cleanupDone(tenantId: string, jobId: string): Promise<void> {
    await this.updateOne(tenantId, { jobId }, { $unset: { cleanupPending: 1 } });
  }

  /** Records that the attempt of `run` is alive; false when the job is no longer running that run. */
  async heartbeat(tenantId: string, jobId: string, run: number): Promise<boolean> {
    return (await this.updateOne(tenantId, { jobId, run, status: 'running' }, { $set: { heartbeatAt: new Date() } })) > 0;
  }

  /** Running jobs, of every tenant, whose last heartbeat is older than `before` (the reaper's sweep). */
  staleAcrossTenants(before: Date): Promise<Job[]> {
    return this.model
      .find({ status: 'running', waiting: { $ne: true }, heartbeatAt: { $lt: before } })
      .limit(SWEEP_LIMIT)
      .lean<Job[]>()
      .exec();
  }

  /** Jobs of every tenant waiting for their children, not looked at since before `before` (the reaper's check). */
  waitingAcrossTenants(before: Date): Promise<Job[]> {
    return this.model
      .find({ status: 'running', waiting: true, heartbeatAt: { $lt: before } })
      .limit(SWEEP_LIMIT)
      .lean<Job[]>()
      .exec();
  }

  /** The children of one run of a job, in order. */
  childrenOf(parent: Pick<Job, 'tenantId' | 'jobId' | 'run'>, projection?: Record<string, 1>): Promise<Job[]> {
    return this.find(parent.tenantId, { parentJobId: parent.jobId, parentRun: parent.run }, { sort: { childIndex: 1 } }, projection);
  }

  /** Asks the children of a run that are not ended to stop (queued ones end at delivery, running ones at their next progress). */
  async stopChildren(parent: Pick<Job, 'tenantId' | 'jobId' | 'run'>): Promise<void> {
    await this.updateMany(
      parent.tenantId,
      { parentJobId: parent.jobId, parentRun: parent.run, status: { $in: ['queued', 'running'] } },
      { $set: { terminateRequested: true } },
    );
  }

  /** Ended jobs, of every tenant, whose clean-up has waited since before `before`. */
  pendingCleanupsAcrossTenants(before: Date): Promise<Job[]> {
    return this.model
      .find({ cleanupPending: true, finishedAt: { $lt: before } })
      .limit(SWEEP_LIMIT)
      .lean<Job[]>()
      .exec();
  }
}
