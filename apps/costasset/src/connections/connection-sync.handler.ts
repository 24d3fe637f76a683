import { Injectable, Logger } from '@nestjs/common';
import { SealedSecretError } from '@lib/config';
import { CostassetEnvironment } from '../costasset.environment';
import { rethrowTransient } from '../jobs/faults';
import { CompletedWithErrors, JobContext, JobHandler, JobHandlerFor, PermanentJobError } from '../jobs/job-handler';
import { JOB_TYPES } from '../jobs/job-types';
import { keyedJobId } from '../jobs/jobs.service';
import { FocusUploadsService } from '../uploads/focus/focus-uploads.service';
import { ConnectionPeriodRepository, ConnectionRepository, ConnectionRunRepository } from './connection.repositories';
import { ConnectionSources } from './connection-sources';
import { DeliveryCopier } from './delivery-copier';
import type { PlannedGroup, PlanNote } from './layouts/export-layout';
import { fingerprintOf } from './layouts/focus-files';
import { LAYOUTS } from './layouts/layouts';
import type { Connection } from './schemas/connection.schema';
import { MAX_RUN_FILES, RunFile, RunImport } from './schemas/connection-run.schema';
import { ListedObject, SourceRefusal } from './sources/bucket-source';

export interface SyncPayload {
  connectionId: string;
}

/** The upload a delivery goes into: the same delivery always gives the same upload (a resumed sync finds it). */
export const deliveryUploadId = (tenantId: string, connectionId: string, group: string, fingerprint: string) =>
  keyedJobId(`connection-upload:${tenantId}:${connectionId}:${group}:${fingerprint}`);

const fileOf = (object: ListedObject, rest: Omit<RunFile, 'key' | 'etag' | 'sizeBytes'>): RunFile => ({
  key: object.key,
  etag: object.etag,
  sizeBytes: object.size,
  ...rest,
});
const noteFile = ({ object, ...rest }: PlanNote): RunFile => fileOf(object, rest);

/** A delivery to import, and why when it is not simply new or changed. */
type Delivery = PlannedGroup & { fingerprint: string; note?: string };

/**
 * The `connections.sync` job (docs/connections.md): lists the connection's prefix, lets the layout
 * choose the latest delivery of each billing period, and imports each delivery that changed since
 * the last sync as one FOCUS upload (copied into the object store, then the FOCUS import job).
 * Holds the connection's lease while it runs, so two syncs of one connection never overlap. A
 * retry (a crash, a fault) lists again: deliveries already handed to an import are found by their
 * upload id and not copied or imported twice.
 */
@Injectable()
@JobHandlerFor(JOB_TYPES.connectionSync)
export class ConnectionSyncHandler implements JobHandler<SyncPayload> {
  readonly progressUnit = 'files' as const;
  private readonly logger = new Logger('ConnectionSync');

  constructor(
    private readonly connections: ConnectionRepository,
    private readonly runs: ConnectionRunRepository,
    private readonly periods: ConnectionPeriodRepository,
    private readonly sources: ConnectionSources,
    private readonly copier: DeliveryCopier,
    private readonly uploads: FocusUploadsService,
    private readonly env: CostassetEnvironment,
  ) {}

  private leaseUntil(): Date {
    return new Date(Date.now() + 2 * this.env.JOBS_HEARTBEAT_DEADLINE_MS);
  }

  async run(context: JobContext<SyncPayload>): Promise<Record<string, unknown> | CompletedWithErrors> {
    const { tenantId, jobId } = context;
    const connection = await this.connections.findOne(tenantId, { connectionId: context.payload.connectionId });
    if (!connection) throw new PermanentJobError('the connection no longer exists');
    if (!(await this.connections.takeLease(tenantId, connection.connectionId, jobId, this.leaseUntil())))
      throw new PermanentJobError('another sync of this connection is running');
    await this.runs.started(tenantId, jobId);
    try {
      return await this.sync(context, connection);
    } catch (error) {
      if (error instanceof SourceRefusal) throw new PermanentJobError(`${error.message}`);
      if (error instanceof SealedSecretError)
        throw new PermanentJobError('the credentials of the connection cannot be opened: set them again');
      rethrowTransient('export source', error);
      throw error;
    }
  }

  async onFailed(job: { tenantId: string; jobId: string; payload: SyncPayload }, reason: string): Promise<void> {
    await this.end(job.tenantId, job.payload.connectionId, job.jobId, reason);
  }

  async onTerminated(job: { tenantId: string; jobId: string; payload: SyncPayload }): Promise<void> {
    await this.end(job.tenantId, job.payload.connectionId, job.jobId, 'terminated on request');
  }

  private async end(tenantId: string, connectionId: string, runId: string, error: string): Promise<void> {
    await this.runs.failed(tenantId, runId, error);
    await this.connections.releaseLease(tenantId, connectionId, runId);
  }

  private async sync(context: JobContext<SyncPayload>, connection: Connection): Promise<Record<string, unknown> | CompletedWithErrors> {
    const { tenantId, jobId } = context;
    const { connectionId } = connection;
    const source = await this.sources.open(connection, this.sources.credentialsOf(connection));
    const objects = await this.sources.list(source, connection.source.prefix);
    const layout = LAYOUTS[connection.layout];
    const plan = await layout.plan(objects, this.sources.manifestReader(source, layout, { tenantId, connectionId }));
    const { deliveries, files } = await this.decide(tenantId, connectionId, jobId, plan.groups);
    files.unshift(...plan.notes.map(noteFile));

    const listed = deliveries.flatMap((delivery) => delivery.files);
    const total = { files: listed.length, bytes: listed.reduce((sum, file) => sum + file.size, 0) };
    const done = { files: 0, bytes: 0 };
    const progress = async () => {
      await context.progress(done.files, total.files);
      await this.connections.takeLease(tenantId, connectionId, jobId, this.leaseUntil());
      const value = { filesDone: done.files, filesTotal: total.files, bytesDone: done.bytes, bytesTotal: total.bytes };
      await this.runs.progressed(tenantId, jobId, objects.length, value);
    };
    await progress();

    const imports: RunImport[] = [];
    for (const delivery of deliveries) {
      const refId = deliveryUploadId(tenantId, connectionId, delivery.group, delivery.fingerprint);
      const parts = await this.copier.copy(tenantId, refId, source, delivery.files, async (file) => {
        done.files++;
        done.bytes += file.size;
        await progress();
      });
      const label = `${connection.name}: ${delivery.billingPeriod ?? delivery.group} (${delivery.execution})`;
      const where = { billingPeriod: delivery.billingPeriod, execution: delivery.execution };
      const started = await this.uploads.importFromConnection(tenantId, refId, parts, {
        label: label.slice(0, 500),
        connection: { connectionId, runId: jobId, group: delivery.group, ...where },
        createdBy: connection.createdBy,
      });
      await this.periods.record(tenantId, {
        connectionId,
        group: delivery.group,
        fingerprint: delivery.fingerprint,
        execution: delivery.execution,
        uploadId: refId,
        runId: jobId,
        importedAt: new Date(),
      });
      const bytes = delivery.files.reduce((sum, file) => sum + file.size, 0);
      imports.push({
        billingPeriod: delivery.billingPeriod ?? delivery.group,
        execution: delivery.execution,
        uploadId: refId,
        jobId: started.jobId,
        files: delivery.files.length,
        bytes,
      });
      const note = delivery.note ? { reason: delivery.note } : {};
      for (const file of delivery.files) files.push(fileOf(file, { outcome: 'imported', ...note, ...where, uploadId: refId }));
    }
    return this.finish(tenantId, connectionId, jobId, { found: objects.length, files, imports, bytes: total.bytes });
  }

  /** Deliveries whose files changed since the last sync (by key and ETag), and the files of the others, skipped. */
  private async decide(
    tenantId: string,
    connectionId: string,
    runId: string,
    groups: PlannedGroup[],
  ): Promise<{ deliveries: Delivery[]; files: RunFile[] }> {
    const previous = new Map((await this.periods.find(tenantId, { connectionId })).map((entry) => [entry.group, entry]));
    const earlierUploads = await this.uploads.states(
      tenantId,
      [...previous.values()].map((entry) => entry.uploadId),
    );
    const deliveries: Delivery[] = [];
    const files: RunFile[] = [];
    for (const group of groups) {
      const where = { billingPeriod: group.billingPeriod, execution: group.execution };
      const fingerprint = fingerprintOf(group.files);
      const before = previous.get(group.group);
      const refusal = this.refusalOf(group.files);
      // a delivery this run already handed over (an earlier attempt) goes through again: found, not redone
      const earlier = before?.fingerprint === fingerprint && before.runId !== runId ? earlierUploads.get(before.uploadId) : undefined;
      if (before && earlier?.status === 'failed') {
        const cause = earlier.errors?.[0]?.reason ?? 'see the upload';
        deliveries.push({
          ...group,
          fingerprint,
          note: `imported again: the files are unchanged, but their last import failed (${cause})`,
        });
      } else if (before && before.fingerprint === fingerprint && before.runId !== runId) {
        const reason =
          earlier?.status === 'cleaned'
            ? `unchanged since its upload ${before.uploadId} was cleaned (changed files are imported again)`
            : `unchanged since an earlier sync (upload ${before.uploadId})`;
        for (const file of group.files) files.push(fileOf(file, { outcome: 'skipped', reason, ...where, uploadId: before.uploadId }));
      } else if (refusal) {
        for (const file of group.files) files.push(fileOf(file, { outcome: 'rejected', reason: refusal, ...where }));
      } else deliveries.push({ ...group, fingerprint });
    }
    deliveries.sort((a, b) => (a.billingPeriod ?? a.group).localeCompare(b.billingPeriod ?? b.group) || a.group.localeCompare(b.group));
    return { deliveries, files };
  }

  /** Why a delivery cannot be one upload: the FOCUS upload limits. */
  private refusalOf(files: ListedObject[]): string | undefined {
    if (files.length > this.env.FOCUS_MAX_PARTS)
      return `the delivery has ${files.length} files, over FOCUS_MAX_PARTS (${this.env.FOCUS_MAX_PARTS})`;
    const large = files.find((file) => file.size > this.env.FOCUS_MAX_FILE_BYTES);
    return large ? `${large.key} is over FOCUS_MAX_FILE_BYTES (${this.env.FOCUS_MAX_FILE_BYTES} bytes)` : undefined;
  }

  private async finish(
    tenantId: string,
    connectionId: string,
    runId: string,
    outcome: { found: number; files: RunFile[]; imports: RunImport[]; bytes: number },
  ): Promise<Record<string, unknown> | CompletedWithErrors> {
    const count = (kind: RunFile['outcome']) => outcome.files.filter((file) => file.outcome === kind).length;
    const counts = {
      found: outcome.found,
      imported: count('imported'),
      skipped: count('skipped'),
      rejected: count('rejected'),
      bytesImported: outcome.bytes,
    };
    await this.runs.finished(tenantId, runId, {
      ...counts,
      imports: outcome.imports,
      files: outcome.files.slice(0, MAX_RUN_FILES),
      filesTruncated: outcome.files.length > MAX_RUN_FILES,
    });
    await this.connections.releaseLease(tenantId, connectionId, runId);
    this.logger.log({ tenantId, connectionId, runId, ...counts, imports: outcome.imports.length }, 'connection synced');
    const result = { ...counts, imports: outcome.imports.length };
    return counts.rejected > 0 ? new CompletedWithErrors(result) : result;
  }
}
