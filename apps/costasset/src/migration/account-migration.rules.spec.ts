import { randomBytes } from 'node:crypto';
import { SecretSealer } from '@lib/config';
import type { CostassetEnvironment } from '../costasset.environment';
import { PermanentJobError } from '../jobs/job-handler';
import { AccountMigrationHandler } from './account-migration.handler';
import { LegacyReadError, readLegacyAccounts } from './legacy-client';
import type { BillingAccountRepository, MigrationRecordRepository, MigrationRepository } from './migration.repositories';

// the legacy service is the one thing not run: its answer (or failure) is given per test
jest.mock('./legacy-client', () => ({ ...jest.requireActual('./legacy-client'), readLegacyAccounts: jest.fn() }));
const legacy = readLegacyAccounts as jest.MockedFunction<typeof readLegacyAccounts>;

/**
 * The account migration's rules, with its three collections in memory: valid accounts are upserted
 * by (provider, id) so that a re-run never duplicates them, every record's outcome is kept, progress
 * counts accounts, the legacy host's permanent refusals fail the job at once, and the sealed token
 * is dropped however the job ends — but kept while a retry may still need it.
 */

type Doc = Record<string, unknown>;
type BulkOp = { updateOne: { filter: Doc; update: { $set?: Doc; $unset?: Doc; $setOnInsert?: Doc }; upsert?: boolean } };

const sameKeys = (doc: Doc, filter: Doc) => Object.entries(filter).every(([key, value]) => doc[key] === value);

class Collection {
  docs: Doc[] = [];
  readonly bulkWrite = jest.fn(async (tenantId: string, operations: BulkOp[]) => {
    for (const { updateOne } of operations) {
      let doc = this.docs.find((entry) => entry.tenantId === tenantId && sameKeys(entry, updateOne.filter));
      if (!doc) {
        if (!updateOne.upsert) continue;
        doc = { tenantId, ...updateOne.filter, ...updateOne.update.$setOnInsert };
        this.docs.push(doc);
      }
      Object.assign(doc, updateOne.update.$set);
      for (const key of Object.keys(updateOne.update.$unset ?? {})) delete doc[key];
    }
  });

  async findOne(tenantId: string, filter: Doc) {
    return this.docs.find((doc) => doc.tenantId === tenantId && sameKeys(doc, filter)) ?? null;
  }

  async updateOne(tenantId: string, filter: Doc, update: { $set?: Doc; $unset?: Doc }) {
    const doc = await this.findOne(tenantId, filter);
    if (!doc) return 0;
    Object.assign(doc, update.$set);
    for (const key of Object.keys(update.$unset ?? {})) delete doc[key];
    return 1;
  }
}

function world() {
  const sealer = new SecretSealer(randomBytes(32));
  const migrations = new Collection();
  const accounts = new Collection();
  const records = new Collection();
  migrations.docs.push({
    tenantId: 't1',
    migrationId: 'm1',
    legacyURL: 'https://legacy.example.com',
    userName: 'u',
    status: 'running',
    sealedToken: sealer.seal('the-token', 't1:m1'),
  });
  const env = {
    MIGRATION_ALLOW_PRIVATE_HOSTS: false,
    MIGRATION_TIMEOUT_MS: 1000,
    MIGRATION_MAX_RESPONSE_BYTES: 1024,
  } as CostassetEnvironment;
  const handler = new AccountMigrationHandler(
    migrations as unknown as MigrationRepository,
    accounts as unknown as BillingAccountRepository,
    records as unknown as MigrationRecordRepository,
    sealer,
    env,
  );
  const progress = jest.fn(async () => undefined);
  const run = () => handler.run({ tenantId: 't1', jobId: 'j1', attempt: 1, payload: { migrationId: 'm1' }, progress });
  const migration = () => migrations.docs[0];
  return { handler, run, migrations, accounts, records, progress, migration };
}

const ACCOUNTS = [
  { id: 'acc-1', name: 'Prod', provider: 'aws', currency: 'USD', status: 'active' },
  { id: 'acc-2', provider: 'aws' },
  { id: 'acc-1', name: 'Prod', provider: 'azure', parentId: 'tenant-9' },
];

describe('AccountMigrationHandler rules', () => {
  beforeEach(() => legacy.mockReset());

  it('calls the legacy service with the opened token, never the sealed one', async () => {
    const { run } = world();
    legacy.mockResolvedValue([]);
    await run();
    expect(legacy).toHaveBeenCalledWith(
      'https://legacy.example.com',
      'the-token',
      'u',
      expect.objectContaining({ allowPrivateHosts: false }),
    );
  });

  it(
    'upserts each valid account by (provider, id), records every ' + 'record’s outcome with its reason, and completes with the counts',
    async () => {
      const { run, accounts, records, migration } = world();
      legacy.mockResolvedValue({ accounts: ACCOUNTS });
      expect(await run()).toEqual({ migrationId: 'm1', succeeded: 2, failed: 1 });
      expect(
        accounts.docs.map(({ provider, accountId, name, currency, parentId }) => ({ provider, accountId, name, currency, parentId })),
      ).toEqual([
        { provider: 'aws', accountId: 'acc-1', name: 'Prod', currency: 'USD', parentId: undefined },
        { provider: 'azure', accountId: 'acc-1', name: 'Prod', currency: undefined, parentId: 'tenant-9' },
      ]);
      expect(records.docs.map(({ provider, accountId, status, reason }) => ({ provider, accountId, status, reason }))).toEqual([
        { provider: 'aws', accountId: 'acc-1', status: 'succeeded', reason: undefined },
        { provider: null, accountId: 'acc-2', status: 'failed', reason: expect.stringContaining('name') },
        { provider: 'azure', accountId: 'acc-1', status: 'succeeded', reason: undefined },
      ]);
      expect(migration()).toMatchObject({ status: 'completed', succeeded: 2, failed: 1 });
      expect(migration().sealedToken).toBeUndefined();
    },
  );

  it('is idempotent: a re-run updates the same accounts and records instead of adding new ones', async () => {
    const { run, accounts, records, migration, migrations } = world();
    legacy.mockResolvedValue(ACCOUNTS);
    const sealed = migration().sealedToken;
    await run();
    // the same migration runs again (a redelivery after its writes): its token is still there
    migrations.docs[0].sealedToken = sealed;
    legacy.mockResolvedValue([{ ...ACCOUNTS[0], name: 'Renamed' }, ACCOUNTS[1], ACCOUNTS[2]]);
    expect(await run()).toEqual({ migrationId: 'm1', succeeded: 2, failed: 1 });
    expect(accounts.docs).toHaveLength(2);
    expect(accounts.docs[0]).toMatchObject({ provider: 'aws', accountId: 'acc-1', name: 'Renamed' });
    expect(records.docs).toHaveLength(3);
    expect(records.docs[0]).toMatchObject({ provider: 'aws', accountId: 'acc-1', status: 'succeeded', name: 'Renamed' });
  });

  it('counts progress in accounts, up to the total', async () => {
    const { run, progress, handler } = world();
    legacy.mockResolvedValue(ACCOUNTS);
    await run();
    expect(handler.progressUnit).toBe('accounts');
    expect(progress).toHaveBeenLastCalledWith(3, 3);
  });

  it(
    'fails the job at once when the legacy host refuses for good, ' + 'and lets a transient failure be retried with the token kept',
    async () => {
      const { run, migration } = world();
      legacy.mockRejectedValueOnce(new LegacyReadError('the legacy service answered 401', true));
      await expect(run()).rejects.toBeInstanceOf(PermanentJobError);
      legacy.mockRejectedValueOnce(new LegacyReadError('the legacy service timed out', false));
      const transient = await run().catch((error: unknown) => error);
      expect(transient).toBeInstanceOf(LegacyReadError);
      expect(transient).not.toBeInstanceOf(PermanentJobError);
      // the next attempt still needs the token
      expect(migration().sealedToken).toEqual(expect.any(String));
    },
  );

  it('fails the job at once on an answer that is not an account list', async () => {
    const { run, accounts } = world();
    legacy.mockResolvedValue({ items: [] });
    await expect(run()).rejects.toThrow(new PermanentJobError('the legacy response is neither an array nor { "accounts": [...] }'));
    expect(accounts.bulkWrite).not.toHaveBeenCalled();
  });

  it('fails the job at once when the token is gone (the migration already ended)', async () => {
    const { run, migrations } = world();
    delete migrations.docs[0].sealedToken;
    await expect(run()).rejects.toBeInstanceOf(PermanentJobError);
    expect(legacy).not.toHaveBeenCalled();
  });

  it('drops the sealed token however the job ends: failed (with the reason) or terminated', async () => {
    for (const end of ['failed', 'terminated'] as const) {
      const { handler, migration } = world();
      if (end === 'failed') await handler.onFailed({ tenantId: 't1', payload: { migrationId: 'm1' } }, 'host unreachable');
      else await handler.onTerminated({ tenantId: 't1', payload: { migrationId: 'm1' } });
      expect(migration()).toMatchObject({ status: end, ...(end === 'failed' ? { error: 'host unreachable' } : {}) });
      expect(migration().sealedToken).toBeUndefined();
      expect(migration().finishedAt).toBeInstanceOf(Date);
    }
  });
});
