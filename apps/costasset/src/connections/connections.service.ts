import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Principal } from '@lib/auth';
import { isDuplicateKey, Problems } from '@lib/core';
import { DEFAULT_PAGE_SIZE, PageQuery } from '@lib/http';
import { JOB_TYPES } from '../jobs/job-types';
import { JobsService, keyedJobId } from '../jobs/jobs.service';
import { FINAL_JOB_STATUSES } from '../jobs/schemas/job.schema';
import { CostassetEnvironment } from '../costasset.environment';
import { isForbiddenHost } from '../outbound/host-policy';
import { UploadsRepository } from '../uploads/uploads.repository';
import { hostOf } from './sources/open-source';
import { ConnectionChecker } from './connection-checker';
import {
  ConnectionPeriodRepository,
  ConnectionManifestRepository,
  ConnectionRepository,
  ConnectionRunRepository,
} from './connection.repositories';
import { ConnectionSources } from './connection-sources';
import { connectionSettings, presentConnection, presentRun, presentSummary } from './connection.presenter';
import {
  ConnectionTestResponse,
  ConnectionListResponse,
  ConnectionResponse,
  ConnectionRunListResponse,
  ConnectionRunResponse,
  CreateConnectionRequest,
  SyncStartedResponse,
  UpdateConnectionRequest,
} from './dto/connection.dto';
import { nextRunOf } from './sync-schedule';
import type { Connection, ConnectionSchedule } from './schemas/connection.schema';
import type { ConnectionRun } from './schemas/connection-run.schema';

/** How long a queued sync holds the connection before its job takes the lease over (a crash in between frees it then). */
const QUEUED_LEASE_MS = 6 * 60 * 60 * 1000;
const MAX_CONNECTIONS = 200;

const notFound = (id: string) => Problems.notFound('CONNECTION_NOT_FOUND', `No connection ${id}`);

/** Data connections (docs/connections.md): the buckets the clouds write billing exports to, tested, scheduled and synced. */
@Injectable()
export class ConnectionsService {
  constructor(
    private readonly connections: ConnectionRepository,
    private readonly runs: ConnectionRunRepository,
    private readonly periods: ConnectionPeriodRepository,
    private readonly manifests: ConnectionManifestRepository,
    private readonly sources: ConnectionSources,
    private readonly checker: ConnectionChecker,
    private readonly jobs: JobsService,
    private readonly uploads: UploadsRepository,
    private readonly env: CostassetEnvironment,
  ) {}

  /** Tests settings without saving them. */
  async test(request: CreateConnectionRequest): Promise<ConnectionTestResponse> {
    const { source, credentials } = connectionSettings(request.type, request.source, request.credentials);
    await this.assertHostAllowed(request.type, source);
    return this.checker.check({ type: request.type, layout: request.layout, source }, credentials);
  }

  /** The outbound host rule (docs/connections.md): a private or loopback endpoint only where the deployment allows it. */
  private async assertHostAllowed(type: Connection['type'], source: Connection['source']): Promise<void> {
    const host = hostOf({ type, source });
    if (!this.env.CONNECTIONS_ALLOW_PRIVATE_HOSTS && (await isForbiddenHost(host)))
      throw Problems.badRequest(
        'CONNECTION_HOST_NOT_ALLOWED',
        `${host.replace(/^\[|\]$/g, '')} is or resolves to a private, loopback, link-local or unspecified address ` +
          '(a deployment allows them with CONNECTIONS_ALLOW_PRIVATE_HOSTS=true)',
      );
  }

  async create(principal: Principal, request: CreateConnectionRequest): Promise<ConnectionResponse> {
    const { tenantId } = principal;
    const { source, credentials, schedule } = connectionSettings(request.type, request.source, request.credentials, request.schedule);
    if ((await this.connections.count(tenantId)) >= MAX_CONNECTIONS)
      throw Problems.conflict('CONNECTION_LIMIT', `A tenant has at most ${MAX_CONNECTIONS} connections`);
    await this.assertHostAllowed(request.type, source);
    const check = await this.checker.check({ type: request.type, layout: request.layout, source }, credentials);
    if (!check.ok) throw Problems.badRequest('CONNECTION_TEST_FAILED', check.problem ?? 'the connection test failed');
    const connectionId = randomUUID();
    const enabled = request.enabled ?? true;
    try {
      const created = await this.connections.create(tenantId, {
        connectionId,
        name: request.name,
        type: request.type,
        layout: request.layout,
        source,
        ...(credentials.accessKeyId ? { accessKeyId: credentials.accessKeyId } : {}),
        ...(credentials.accountName ? { accountName: credentials.accountName } : {}),
        sealedCredentials: this.sources.seal(tenantId, connectionId, credentials),
        ...(schedule ? { schedule } : {}),
        enabled,
        nextSyncAt: this.nextSync(schedule, enabled),
        lease: null,
        lastCheck: { ...check, checkedAt: new Date(check.checkedAt) },
        createdBy: { userId: principal.userId, idpId: principal.idpId },
      });
      return presentConnection(created, check, null);
    } catch (error) {
      if (isDuplicateKey(error))
        throw Problems.conflict('CONNECTION_NAME_TAKEN', `A connection named ${JSON.stringify(request.name)} exists`);
      throw error;
    }
  }

  async list(tenantId: string): Promise<ConnectionListResponse> {
    const connections = await this.connections.find(tenantId, {}, { sort: { name: 1 }, limit: MAX_CONNECTIONS });
    const lastRuns = await this.lastRuns(tenantId, connections);
    return {
      items: connections.map((connection) =>
        presentConnection(connection, connection.lastCheck, lastRuns.get(connection.lastRunId ?? '') ?? null),
      ),
    };
  }

  async get(tenantId: string, connectionId: string): Promise<ConnectionResponse> {
    const connection = await this.find(tenantId, connectionId);
    const lastRuns = await this.lastRuns(tenantId, [connection]);
    return presentConnection(connection, connection.lastCheck, lastRuns.get(connection.lastRunId ?? '') ?? null);
  }

  async update(tenantId: string, connectionId: string, request: UpdateConnectionRequest): Promise<ConnectionResponse> {
    const connection = await this.find(tenantId, connectionId);
    const mergedSource = { ...connection.source, ...(request.source ?? {}) };
    const settings = connectionSettings(
      connection.type,
      mergedSource,
      request.credentials ?? this.sources.credentialsOf(connection),
      request.schedule === null ? undefined : (request.schedule ?? connection.schedule),
    );
    const set: Partial<Connection> = {};
    const unset: Record<string, 1> = {};
    if (request.source !== undefined || request.credentials !== undefined) {
      await this.assertHostAllowed(connection.type, settings.source);
      const check = await this.checker.check(
        { type: connection.type, layout: connection.layout, source: settings.source },
        settings.credentials,
      );
      if (!check.ok) throw Problems.badRequest('CONNECTION_TEST_FAILED', check.problem ?? 'the connection test failed');
      Object.assign(set, { source: settings.source, lastCheck: { ...check, checkedAt: new Date(check.checkedAt) } });
    }
    if (request.credentials !== undefined) {
      set.sealedCredentials = this.sources.seal(tenantId, connectionId, settings.credentials);
      for (const field of ['accessKeyId', 'accountName'] as const)
        if (settings.credentials[field]) set[field] = settings.credentials[field];
        else unset[field] = 1;
    }
    if (request.name !== undefined) set.name = request.name;
    const enabled = request.enabled ?? connection.enabled;
    set.enabled = enabled;
    if (request.schedule === null) unset.schedule = 1;
    else if (request.schedule !== undefined) set.schedule = settings.schedule;
    const schedule = request.schedule === null ? undefined : (set.schedule ?? connection.schedule);
    if (request.schedule !== undefined || request.enabled !== undefined) set.nextSyncAt = this.nextSync(schedule, enabled);
    const update = { $set: set, ...(Object.keys(unset).length ? { $unset: unset } : {}) };
    try {
      await this.connections.updateOne(tenantId, { connectionId }, update);
    } catch (error) {
      if (isDuplicateKey(error))
        throw Problems.conflict('CONNECTION_NAME_TAKEN', `A connection named ${JSON.stringify(request.name)} exists`);
      throw error;
    }
    return this.get(tenantId, connectionId);
  }

  /** Deletes the connection and what it remembered of the bucket; its run history goes too, the uploads it made stay. */
  async remove(tenantId: string, connectionId: string): Promise<void> {
    const connection = await this.find(tenantId, connectionId);
    if (await this.activeSync(tenantId, connection))
      throw Problems.conflict('CONNECTION_SYNC_RUNNING', 'A sync of this connection is running; wait for it or terminate its job');
    await this.connections.deleteOne(tenantId, { connectionId });
    await this.periods.deleteMany(tenantId, { connectionId });
    await this.manifests.deleteMany(tenantId, { connectionId });
    await this.runs.deleteMany(tenantId, { connectionId });
  }

  /** Tests the stored settings again and keeps the result. */
  async retest(tenantId: string, connectionId: string): Promise<ConnectionTestResponse> {
    const connection = await this.find(tenantId, connectionId);
    const check = await this.checker.check(connection, this.sources.credentialsOf(connection));
    await this.connections.updateOne(
      tenantId,
      { connectionId },
      { $set: { lastCheck: { ...check, checkedAt: new Date(check.checkedAt) } } },
    );
    return check;
  }

  /**
   * Queues a sync, unless one is queued or running: then answers that one. The lease is taken
   * here (conditionally), so two requests at once, or a request and the schedule, queue one sync.
   */
  async requestSync(tenantId: string, connectionId: string, trigger: 'manual' | 'schedule', by?: Principal): Promise<SyncStartedResponse> {
    const connection = await this.find(tenantId, connectionId);
    const active = await this.activeSync(tenantId, connection);
    if (active) return { runId: active, jobId: active, alreadyRunning: true };
    const key = `connection-sync:${tenantId}:${connectionId}:${randomUUID()}`;
    const jobId = keyedJobId(key);
    const taken = await this.connections.takeLease(
      tenantId,
      connectionId,
      jobId,
      new Date(Date.now() + QUEUED_LEASE_MS),
      new Date(),
      connection.lease?.jobId,
    );
    if (!taken) {
      const now = await this.find(tenantId, connectionId);
      return { runId: now.lease?.jobId ?? '', jobId: now.lease?.jobId ?? '', alreadyRunning: true };
    }
    await this.runs.queued(tenantId, {
      connectionId,
      runId: jobId,
      trigger,
      ...(by ? { requestedBy: { userId: by.userId, idpId: by.idpId } } : {}),
    });
    await this.connections.updateOne(tenantId, { connectionId }, { $set: { lastRunId: jobId } });
    try {
      await this.jobs.submitOnce(tenantId, JOB_TYPES.connectionSync, { connectionId }, key);
    } catch (error) {
      await this.runs.failed(tenantId, jobId, 'the sync could not be queued');
      await this.connections.releaseLease(tenantId, connectionId, jobId);
      throw error;
    }
    return { runId: jobId, jobId, alreadyRunning: false };
  }

  async runPage(tenantId: string, connectionId: string, query: PageQuery): Promise<ConnectionRunListResponse> {
    await this.find(tenantId, connectionId);
    const page = await this.runs.page(tenantId, { connectionId }, query.limit ?? DEFAULT_PAGE_SIZE, query.cursor, 'newest');
    return { items: page.items.map(presentSummary), nextCursor: page.nextCursor };
  }

  async run(tenantId: string, connectionId: string, runId: string): Promise<ConnectionRunResponse> {
    const run = await this.runs.findOne(tenantId, { connectionId, runId });
    if (!run) throw Problems.notFound('CONNECTION_RUN_NOT_FOUND', `No run ${runId} of connection ${connectionId}`);
    const refIds = run.imports.map((entry) => entry.uploadId);
    const uploads = refIds.length ? await this.uploads.find(tenantId, { refId: { $in: refIds } }) : [];
    return presentRun(run, new Map(uploads.map((upload) => [upload.refId, upload.status])));
  }

  /** The job id of a sync queued or running on the connection, if any. */
  private async activeSync(tenantId: string, connection: Connection): Promise<string | undefined> {
    const lease = connection.lease;
    if (!lease || lease.until.getTime() < Date.now()) return undefined;
    const job = await this.jobs.get(tenantId, lease.jobId);
    return job && !FINAL_JOB_STATUSES.includes(job.status) ? lease.jobId : undefined;
  }

  private nextSync(schedule: ConnectionSchedule | undefined, enabled: boolean): Date | null {
    return schedule && enabled ? nextRunOf(schedule, new Date()) : null;
  }

  private async lastRuns(tenantId: string, connections: Connection[]): Promise<Map<string, ConnectionRun>> {
    const ids = connections.map((connection) => connection.lastRunId).filter((id): id is string => !!id);
    const runs = ids.length ? await this.runs.find(tenantId, { runId: { $in: ids } }, {}, { files: 0, imports: 0 }) : [];
    return new Map(runs.map((run) => [run.runId, run]));
  }

  private async find(tenantId: string, connectionId: string): Promise<Connection> {
    const connection = /^[0-9a-f-]{36}$/.test(connectionId) ? await this.connections.findOne(tenantId, { connectionId }) : null;
    if (!connection) throw notFound(connectionId);
    return connection;
  }
}
