import { InsertBatch } from '@lib/persistence';
import { BatchWriter } from './batch-writer';

/** Batches that keep their objects (a repository that does not encode), so that the test sees them. */
const bulkBatch = (tenantId: string) => new InsertBatch(tenantId, false);
const numbers = (batch: InsertBatch) => batch.objects.map((doc) => (doc as { n: number }).n);

/** An insert that resolves when the test says so. */
function gatedTarget() {
  const calls: { batch: InsertBatch; release: (error?: Error) => void }[] = [];
  const target = {
    bulkBatch,
    insertBatch: jest.fn(
      (batch: InsertBatch) =>
        new Promise<number>((resolve, reject) =>
          calls.push({ batch, release: (error) => (error ? reject(error) : resolve(batch.length)) }),
        ),
    ),
  };
  return { calls, target };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('BatchWriter', () => {
  it('adds synchronously until a batch is full, then writes it while the next batch fills (one insert in flight per kind)', async () => {
    const { calls, target } = gatedTarget();
    const acknowledged: number[][] = [];
    const writer = new BatchWriter('t1', 2, { cost: target, asset: target, utilization: target }, async (written, _kind, sent) => {
      acknowledged.push([written, ...numbers(calls[acknowledged.length].batch)]);
      expect(sent).toBe(written);
    });
    expect(writer.add('cost', { n: 1 })).toBeUndefined();
    await writer.add('cost', { n: 2 });
    // the first batch is being written: adding to the next one does not wait for it
    expect(calls).toHaveLength(1);
    expect(writer.add('cost', { n: 3 })).toBeUndefined();
    const third = writer.add('cost', { n: 4 });
    let settled = false;
    void third?.then(() => (settled = true));
    await tick();
    // the second full batch waits for the first insert: never two in flight
    expect(settled).toBe(false);
    expect(calls).toHaveLength(1);
    calls[0].release();
    await third;
    expect(calls).toHaveLength(2);
    expect(acknowledged).toEqual([[2, 1, 2]]);
    writer.add('cost', { n: 5 });
    const done = writer.flushAll();
    await tick();
    calls[1].release();
    await tick();
    calls[2].release();
    await done;
    expect(acknowledged).toEqual([
      [2, 1, 2],
      [2, 3, 4],
      [1, 5],
    ]);
    expect(target.insertBatch).toHaveBeenCalledTimes(3);
    // every document stamped with the writer's tenant
    const tenants = calls.flatMap(({ batch }) => [batch.tenantId, ...batch.objects.map((doc) => (doc as { tenantId?: string }).tenantId)]);
    expect(new Set(tenants)).toEqual(new Set(['t1']));
  });

  it('fails the next flush with an insert error, acknowledges nothing more and writes nothing more', async () => {
    const { calls, target } = gatedTarget();
    const afterFlush = jest.fn(async () => undefined);
    const writer = new BatchWriter('t1', 1, { cost: target, asset: target, utilization: target }, afterFlush);
    await writer.add('cost', { n: 1 });
    calls[0].release(new Error('connection to the database lost'));
    await expect(writer.add('cost', { n: 2 })).rejects.toThrow('connection to the database lost');
    await expect(writer.flushAll()).rejects.toThrow('connection to the database lost');
    expect(target.insertBatch).toHaveBeenCalledTimes(1);
    expect(afterFlush).not.toHaveBeenCalled();
  });

  it('fails flushAll with an error of the last insert or of its afterFlush', async () => {
    const { calls, target } = gatedTarget();
    const writer = new BatchWriter('t1', 10, { cost: target, asset: target, utilization: target }, async () => {
      throw new Error('touch failed');
    });
    writer.add('asset', { n: 1 });
    const done = writer.flushAll();
    await tick();
    calls[0].release();
    await expect(done).rejects.toThrow('touch failed');
  });

  it('counts as database time only the time the caller waited for an insert', async () => {
    const target = { bulkBatch, insertBatch: jest.fn(async (batch: InsertBatch) => batch.length) };
    const writer = new BatchWriter('t1', 1, { cost: target, asset: target, utilization: target }, async () => undefined);
    const slow = {
      bulkBatch,
      insertBatch: jest.fn((batch: InsertBatch) => new Promise<number>((resolve) => setTimeout(() => resolve(batch.length), 60))),
    };
    const waiting = new BatchWriter('t1', 1, { cost: slow, asset: slow, utilization: slow }, async () => undefined);
    await writer.add('cost', {});
    await writer.flushAll();
    expect(writer.databaseMs).toBeLessThan(30);
    await waiting.add('cost', {});
    await new Promise((resolve) => setTimeout(resolve, 80));
    await waiting.flushAll();
    // the insert ended while the caller was busy elsewhere: nothing waited
    expect(waiting.databaseMs).toBeLessThan(30);
    await waiting.add('cost', {});
    await waiting.flushAll();
    expect(waiting.databaseMs).toBeGreaterThanOrEqual(40);
  });
});
