import { randomBytes } from 'node:crypto';
import { SecretSealer } from '@lib/config';
import { PermanentJobError } from '../jobs/job-handler';
import { AccountMigrationHandler } from './account-migration.handler';

describe('AccountMigrationHandler', () => {
  const run = (stored: SecretSealer, current: SecretSealer) => {
    const migration = {
      migrationId: 'm1',
      legacyURL: 'https://legacy.example.com',
      userName: 'u',
      sealedToken: stored.seal('token', 't1:m1'),
    };
    const migrations = { findOne: async () => migration };
    const handler = new AccountMigrationHandler(migrations as never, {} as never, {} as never, current, {} as never);
    return handler.run({ tenantId: 't1', jobId: 'j1', attempt: 1, payload: { migrationId: 'm1' }, progress: async () => undefined });
  };

  it('fails the job at once when the sealed token does not open (another key): no retry can fix it', async () => {
    const error = await run(new SecretSealer(randomBytes(32)), new SecretSealer(randomBytes(32))).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PermanentJobError);
    expect((error as Error).message).toMatch(/MIGRATION_ENCRYPTION_KEY/);
  });
});
