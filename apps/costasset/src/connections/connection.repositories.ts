import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { TenantRepository } from '@lib/persistence';
import { CONNECTION, Connection } from './schemas/connection.schema';
import { CONNECTION_RUN, ConnectionRun } from './schemas/connection-run.schema';
import { CONNECTION_MANIFEST, CONNECTION_PERIOD, ConnectionManifest, ConnectionPeriod } from './schemas/connection-state.schema';

const SWEEP_LIMIT = 100;

@Injectable()
export class ConnectionRepository extends TenantRepository<Connection> {
  constructor(@InjectModel(CONNECTION) model: Model<Connection>) {
    super(model);
  }

  /**
   * Takes the connection's sync lease for `jobId` when it is free, expired, already its own, or
   * held by `replacing` (a job known to have ended); false when another job holds it.
   */
  async takeLease(
    tenantId: string,
    connectionId: string,
    jobId: string,
    until: Date,
    now = new Date(),
    replacing?: string,
  ): Promise<boolean> {
    const holders = [jobId, ...(replacing ? [replacing] : [])];
    const free = { $or: [{ lease: null }, { 'lease.until': { $lt: now } }, { 'lease.jobId': { $in: holders } }] };
    return (await this.updateOne(tenantId, { connectionId, ...free }, { $set: { lease: { jobId, until } } })) > 0;
  }

  async releaseLease(tenantId: string, connectionId: string, jobId: string): Promise<void> {
    await this.updateOne(tenantId, { connectionId, 'lease.jobId': jobId }, { $set: { lease: null } });
  }

  /** Enabled connections, of every tenant, whose scheduled sync is due (the scheduler's sweep). */
  dueAcrossTenants(now: Date): Promise<Connection[]> {
    return this.model
      .find({ enabled: true, nextSyncAt: { $lte: now } })
      .limit(SWEEP_LIMIT)
      .lean<Connection[]>()
      .exec();
  }

  /** Moves the schedule on from `due` to `next`; false when another instance did it first. */
  async claimSchedule(tenantId: string, connectionId: string, due: Date, next: Date | null): Promise<boolean> {
    return (await this.updateOne(tenantId, { connectionId, nextSyncAt: due }, { $set: { nextSyncAt: next } })) > 0;
  }
}

/** Runs change state here only: queued → running → succeeded | completed_with_errors | failed. */
@Injectable()
export class ConnectionRunRepository extends TenantRepository<ConnectionRun> {
  constructor(@InjectModel(CONNECTION_RUN) model: Model<ConnectionRun>) {
    super(model);
  }

  async queued(tenantId: string, run: Pick<ConnectionRun, 'connectionId' | 'runId' | 'trigger' | 'requestedBy'>): Promise<void> {
    await this.create(tenantId, {
      ...run,
      status: 'queued',
      startedAt: new Date(),
      found: 0,
      imported: 0,
      skipped: 0,
      rejected: 0,
      bytesImported: 0,
      progress: { filesDone: 0, filesTotal: 0, bytesDone: 0, bytesTotal: 0 },
      imports: [],
      files: [],
      filesTruncated: false,
    });
  }

  async started(tenantId: string, runId: string): Promise<void> {
    await this.updateOne(tenantId, { runId }, { $set: { status: 'running' }, $unset: { error: 1 } });
  }

  async progressed(tenantId: string, runId: string, found: number, progress: ConnectionRun['progress']): Promise<void> {
    await this.updateOne(tenantId, { runId }, { $set: { progress, found } });
  }

  async finished(
    tenantId: string,
    runId: string,
    outcome: Pick<ConnectionRun, 'found' | 'imported' | 'skipped' | 'rejected' | 'bytesImported' | 'imports' | 'files' | 'filesTruncated'>,
  ): Promise<void> {
    const status = outcome.rejected > 0 ? 'completed_with_errors' : 'succeeded';
    await this.updateOne(tenantId, { runId }, { $set: { ...outcome, status, finishedAt: new Date() } });
  }

  async failed(tenantId: string, runId: string, error: string): Promise<void> {
    await this.updateOne(tenantId, { runId }, { $set: { status: 'failed', error, finishedAt: new Date() } });
  }
}

@Injectable()
export class ConnectionPeriodRepository extends TenantRepository<ConnectionPeriod> {
  constructor(@InjectModel(CONNECTION_PERIOD) model: Model<ConnectionPeriod>) {
    super(model);
  }

  async record(tenantId: string, entry: Omit<ConnectionPeriod, 'tenantId'>): Promise<void> {
    await this.updateOne(tenantId, { connectionId: entry.connectionId, group: entry.group }, { $set: entry }, { upsert: true });
  }
}

@Injectable()
export class ConnectionManifestRepository extends TenantRepository<ConnectionManifest> {
  constructor(@InjectModel(CONNECTION_MANIFEST) model: Model<ConnectionManifest>) {
    super(model);
  }

  async record(tenantId: string, entry: Omit<ConnectionManifest, 'tenantId'>): Promise<void> {
    await this.updateOne(tenantId, { connectionId: entry.connectionId, key: entry.key }, { $set: entry }, { upsert: true });
  }
}
