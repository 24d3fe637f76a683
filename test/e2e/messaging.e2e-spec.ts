import { randomUUID } from 'node:crypto';
import { DeadLetter, MessageBus, NatsConnectionProvider, WorkQueue } from '@lib/messaging';
import { ProblemException } from '@lib/http';
import { IsInt } from 'class-validator';
import { eventually } from '../support/platform';

class Work {
  @IsInt() n: number;
}

/** The messaging contract against the real NATS of the stack: request/reply, events, JetStream work queues. */
describe('messaging over real NATS', () => {
  let nats: NatsConnectionProvider;
  let bus: MessageBus;

  beforeAll(async () => {
    nats = new NatsConnectionProvider({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:14222', name: 'contract-test', requestTimeoutMs: 1000, namespace: `msg_${randomUUID().slice(0, 8)}` });
    await nats.get();
    bus = new MessageBus(nats);
  });
  afterAll(() => nats.onApplicationShutdown());

  it('answers requests and carries problems back as problems', async () => {
    await bus.serve('core.config.get', async (req) => {
      if (req.key === 'missing') throw new ProblemException(404, 'CONFIG_NOT_FOUND', 'no such key');
      return { key: req.key, value: `${req.tenantId}:${req.key}` };
    }, 'test');
    await expect(bus.request('core.config.get', { tenantId: 't1', key: 'A' })).resolves.toEqual({ key: 'A', value: 't1:A' });
    await expect(bus.request('core.config.get', { tenantId: 't1', key: 'missing' })).rejects.toMatchObject({ code: 'CONFIG_NOT_FOUND', status: 404 });
  });

  it('turns "nobody answers" into 503', async () => {
    const error = await bus.request('core.flags.list', { tenantId: 't1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProblemException);
    expect((error as ProblemException).getStatus()).toBe(503);
  });

  it('delivers events to subscribers', async () => {
    const seen: string[] = [];
    await bus.subscribe('core.flags.changed', (event) => void seen.push(...event.keys));
    await bus.publish('core.flags.changed', { tenantId: 't1', keys: ['COMMON_DISCOVERY'] });
    await eventually(async () => expect(seen).toEqual(['COMMON_DISCOVERY']));
  });

  it('runs work once, de-duplicates by work id, retries failures and dead-letters after the last attempt', async () => {
    const queue = new WorkQueue<Work>(nats, { payload: Work, stream: 'TESTJOBS', subject: 'jobs.test', durable: 'test-workers', maxDeliver: 3, ackWaitMs: 5000, retryDelayMs: 50 });
    await queue.ensure();
    const attempts = new Map<number, number>();
    const done: number[] = [];
    const dead: DeadLetter<Work>[] = [];
    queue.start(
      async ({ n }, delivery) => {
        attempts.set(n, delivery.attempt);
        delivery.heartbeat();
        if (n === 2 && delivery.attempt < 2) throw new Error('transient');
        if (n === 3) throw new Error('always fails');
        done.push(n);
      },
      async (letter) => void dead.push(letter),
    );
    expect(await queue.enqueue({ n: 1 }, 'work-1')).toEqual({ duplicate: false });
    expect(await queue.enqueue({ n: 1 }, 'work-1')).toEqual({ duplicate: true });
    await queue.enqueue({ n: 2 }, 'work-2');
    await queue.enqueue({ n: 3 }, 'work-3');
    await eventually(async () => {
      expect(done.sort()).toEqual([1, 2]);
      expect(dead).toHaveLength(1);
    });
    expect(attempts.get(2)).toBe(2);
    expect(dead[0]).toMatchObject({ payload: { n: 3 }, attempts: 3, error: 'always fails' });
    await queue.stop();
  });
});
