import { JOB_TYPES } from '../jobs/job-types';
import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Principal } from '@lib/auth';
import { SecretSealer } from '@lib/config';
import { DEFAULT_PAGE_SIZE } from '@lib/http';
import { CostassetEnvironment } from '../costasset.environment';
import { JobsService } from '../jobs/jobs.service';
import { isForbiddenHost } from '../outbound/host-policy';
import {
  MigrationRecordResponse,
  MigrationStatusResponse,
  MigrationStatusQuery,
  StartMigrationRequest,
  StartMigrationResponse,
} from './dto/migration.dto';
import { MigrationRecordRepository, MigrationRepository } from './migration.repositories';
import { MigrationProblems } from './migration.problems';

/** Account migration from the legacy service (docs/interface.md#administration-admin). */
@Injectable()
export class MigrationService {
  constructor(
    private readonly migrations: MigrationRepository,
    private readonly records: MigrationRecordRepository,
    private readonly jobs: JobsService,
    private readonly cipher: SecretSealer,
    private readonly env: CostassetEnvironment,
  ) {}

  async start(principal: Principal, body: StartMigrationRequest): Promise<StartMigrationResponse> {
    const url = this.legacyUrl(body.legacyURL);
    if (!this.env.MIGRATION_ALLOW_PRIVATE_HOSTS) await this.assertPublicHost(url.hostname);
    const migrationId = randomUUID();
    const { tenantId } = principal;
    await this.migrations.create(tenantId, {
      migrationId,
      legacyURL: url.toString(),
      userName: body.userName,
      sealedToken: this.cipher.seal(body.apiToken, `${tenantId}:${migrationId}`),
      status: 'started',
      requestedBy: principal.userId,
      succeeded: 0,
      failed: 0,
    });
    const job = await this.jobs.submit(tenantId, JOB_TYPES.accountMigration, { migrationId }).catch(async (error: unknown) => {
      await this.migrations.updateOne(
        tenantId,
        { migrationId },
        { $set: { status: 'failed', error: 'the migration job could not be started', finishedAt: new Date() }, $unset: { sealedToken: 1 } },
      );
      throw error;
    });
    await this.migrations.updateOne(tenantId, { migrationId }, { $set: { jobId: job.jobId } });
    return { migrationId, jobId: job.jobId, status: 'started' };
  }

  /**
   * A page of the records of one migration (by default the tenant's latest), optionally of one
   * outcome, in the order they were recorded; null when the first page holds none.
   */
  async status(principal: Principal, query: MigrationStatusQuery): Promise<MigrationStatusResponse | null> {
    const { tenantId } = principal;
    const migration = query.migrationId
      ? await this.migrations.findOne(tenantId, { migrationId: query.migrationId })
      : await this.migrations.findOne(tenantId, {}, { sort: { _id: -1 } });
    if (!migration) return null;
    const filter = { migrationId: migration.migrationId, ...(query.status ? { status: query.status } : {}) };
    const page = await this.records.page(tenantId, filter, query.limit ?? DEFAULT_PAGE_SIZE, query.cursor);
    if (page.items.length === 0 && !query.cursor) return null;
    const present = (status: string): MigrationRecordResponse[] =>
      page.items
        .filter((record) => record.status === status)
        .map((record) => ({
          migrationId: record.migrationId,
          accountId: record.accountId,
          ...(record.provider ? { provider: record.provider } : {}),
          ...(record.name ? { name: record.name } : {}),
          status: record.status,
          ...(record.reason ? { reason: record.reason } : {}),
        }));
    const statuses = query.status ? [query.status] : (['succeeded', 'failed'] as const);
    return { ...Object.fromEntries(statuses.map((status) => [status, present(status)])), nextCursor: page.nextCursor };
  }

  private legacyUrl(value: string): URL {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw MigrationProblems.invalidUrl('is not a URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw MigrationProblems.invalidUrl('must be http or https');
    if (url.username || url.password) throw MigrationProblems.invalidUrl('must not carry credentials');
    url.search = '';
    url.hash = '';
    return url;
  }

  /** A name that does not resolve passes here; the job then fails with the reason. The job's own connections are guarded too. */
  private async assertPublicHost(hostname: string): Promise<void> {
    if (await isForbiddenHost(hostname)) throw MigrationProblems.hostNotAllowed(hostname.replace(/^\[|\]$/g, ''));
  }
}
