import { JOB_TYPES } from '../jobs/job-types';
import { Injectable } from '@nestjs/common';
import { SealedSecretError, SecretSealer } from '@lib/config';
import { CostassetEnvironment } from '../costasset.environment';
import { JobContext, JobHandler, PermanentJobError, JobHandlerFor } from '../jobs/job-handler';
import { accountList, checkAccounts } from './legacy-accounts';
import { LegacyReadError, readLegacyAccounts } from './legacy-client';
import { BillingAccountRepository, MigrationRecordRepository, MigrationRepository } from './migration.repositories';

const WRITE_BATCH = 1000;

export interface AccountMigrationPayload {
  migrationId: string;
}

const defined = (fields: Record<string, unknown>) => Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));

type Ref = { tenantId: string; payload: AccountMigrationPayload };

/**
 * Reads the legacy account list and upserts each valid account; every record's outcome is kept
 * in `migration_records`. Upserts keyed by (provider, id) make a re-run idempotent. The sealed
 * token stays on the migration until the job ends, whatever the outcome.
 */
@Injectable()
@JobHandlerFor(JOB_TYPES.accountMigration)
export class AccountMigrationHandler implements JobHandler<AccountMigrationPayload> {
  readonly progressUnit = 'accounts' as const;

  constructor(
    private readonly migrations: MigrationRepository,
    private readonly accounts: BillingAccountRepository,
    private readonly records: MigrationRecordRepository,
    private readonly cipher: SecretSealer,
    private readonly env: CostassetEnvironment,
  ) {}


  async run({ tenantId, payload, progress }: JobContext<AccountMigrationPayload>): Promise<Record<string, unknown>> {
    const { migrationId } = payload;
    const migration = await this.migrations.findOne(tenantId, { migrationId });
    if (!migration?.sealedToken)
      throw new PermanentJobError('the API token of this migration is no longer available; start a new migration');
    const token = this.openToken(migration.sealedToken, `${tenantId}:${migrationId}`);
    let body: unknown;
    try {
      body = await readLegacyAccounts(migration.legacyURL, token, migration.userName, {
        allowPrivateHosts: this.env.MIGRATION_ALLOW_PRIVATE_HOSTS,
        timeoutMs: this.env.MIGRATION_TIMEOUT_MS,
        maxBytes: this.env.MIGRATION_MAX_RESPONSE_BYTES,
      });
    } catch (error) {
      if (error instanceof LegacyReadError && error.permanent) throw new PermanentJobError(error.message);
      throw error;
    }
    let list: unknown[];
    try {
      list = accountList(body);
    } catch (error) {
      throw new PermanentJobError((error as Error).message);
    }
    const checked = checkAccounts(list);
    const now = new Date();
    for (let start = 0; start < checked.length; start += WRITE_BATCH) {
      const batch = checked.slice(start, start + WRITE_BATCH);
      const valid = batch.flatMap((entry) => (entry.ok ? [entry.account] : []));
      await this.accounts.bulkWrite(
        tenantId,
        valid.map((account) => ({
          updateOne: {
            filter: { provider: account.provider, accountId: account.id },
            update: {
              $set: defined({
                name: account.name,
                currency: account.currency,
                status: account.status,
                parentId: account.parentId,
                migrationId,
                migratedAt: now,
              }),
            },
            upsert: true,
          },
        })),
      );
      await this.records.bulkWrite(
        tenantId,
        batch.map((entry) => {
          const key = entry.ok
            ? { provider: entry.account.provider, accountId: entry.account.id }
            : { provider: null, accountId: entry.accountId };
          const outcome = entry.ok ? { status: 'succeeded', name: entry.account.name } : { status: 'failed', reason: entry.reason };
          return {
            updateOne: {
              filter: { migrationId, ...key },
              update: {
                $set: { ...outcome, updatedAt: now },
                $setOnInsert: { createdAt: now },
                ...(entry.ok ? { $unset: { reason: '' } } : {}),
              },
              upsert: true,
            },
          };
        }) as never,
      );
      await progress(Math.min(start + WRITE_BATCH, checked.length), checked.length);
    }
    const succeeded = checked.filter((entry) => entry.ok).length;
    const failed = checked.length - succeeded;
    await this.migrations.updateOne(
      tenantId,
      { migrationId },
      { $set: { status: 'completed', succeeded, failed, finishedAt: new Date() }, $unset: { sealedToken: 1, error: 1 } },
    );
    return { migrationId, succeeded, failed };
  }

  /** A token that does not open (MIGRATION_ENCRYPTION_KEY changed, tampered record) never will: the job fails at once. */
  private openToken(sealed: string, context: string): string {
    try {
      return this.cipher.open(sealed, context);
    } catch (error) {
      if (error instanceof SealedSecretError) {
        throw new PermanentJobError('the sealed API token cannot be opened (was MIGRATION_ENCRYPTION_KEY changed?); start a new migration');
      }
      throw error;
    }
  }

  async onFailed({ tenantId, payload }: Ref, reason: string): Promise<void> {
    await this.migrations.updateOne(
      tenantId,
      { migrationId: payload.migrationId },
      { $set: { status: 'failed', error: reason, finishedAt: new Date() }, $unset: { sealedToken: 1 } },
    );
  }

  async onTerminated({ tenantId, payload }: Ref): Promise<void> {
    await this.migrations.updateOne(
      tenantId,
      { migrationId: payload.migrationId },
      { $set: { status: 'terminated', finishedAt: new Date() }, $unset: { sealedToken: 1 } },
    );
  }
}
