import { randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import { createCostassetApp } from '../../apps/costasset/src/create-costasset-app';

/** A unique index that cannot be built stops the service with a message naming it, instead of running without the rule. */
describe('unique indexes at start-up', () => {
  const uri = () => {
    const url = new URL(process.env.MONGODB_URI ?? 'mongodb://127.0.0.1:37017/corelite');
    url.pathname = `/e2e_indexes_${randomUUID().slice(0, 8)}`;
    return url.toString();
  };

  it('does not start while stored records break a unique index, and says which', async () => {
    const database = uri();
    const connection = await mongoose.createConnection(database).asPromise();
    try {
      const budget = {
        tenantId: 'default',
        name: 'Same',
        amount: 1,
        currency: 'USD',
        scopeExpr: 'providerName == "x"',
        startPeriod: '202401',
        endPeriod: '202401',
        thresholds: [],
      };
      await connection.collection('budgets').insertMany([{ ...budget }, { ...budget }]);

      const { app } = await createCostassetApp({
        ...process.env,
        MONGODB_URI: database,
        NATS_NAMESPACE: `e2e_idx_${randomUUID().slice(0, 8)}`,
        LOG_LEVEL: 'silent',
      });
      const started = app.init().then(
        () => undefined,
        (error: Error) => error,
      );
      const error = await started;
      await app.close().catch(() => undefined);
      expect(error).toBeInstanceOf(Error);
      expect(error?.message).toMatch(/collection "budgets" has no unique index on tenantId \+ name/);
      expect(error?.message).toMatch(/does not start/);
      expect(error?.message).not.toMatch(/dup key/);
    } finally {
      await connection.dropDatabase();
      await connection.close();
    }
  });
});
