import { randomUUID } from 'node:crypto';
import { DeadLetter, MessageBus, NatsConnectionProvider, WorkQueue } from '@lib/messaging';
import { ProblemException } from '@lib/core';
import { Metrics } from '@lib/metrics';
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
    // as the stack's tools user: this test answers authz's requests itself
    nats = new NatsConnectionProvider({
      servers: process.env.NATS_URL ?? 'nats://127.0.0.1:14222',
      name: 'contract-test',
      requestTimeoutMs: 1000,
      namespace: `msg_${randomUUID().slice(0, 8)}`,
      user: process.env.NATS_USER,
      password: process.env.NATS_PASSWORD,
    });
    await nats.get();
    bus = new MessageBus(nats, new Metrics('contract-test'));
  });
  afterAll(() => nats.onApplicationShutdown());

  it('answers requests and carries problems back as problems', async () => {
    await bus.serve(
      'core.config.get',
      async (req) => {
        if (req.key === 'missing') throw new ProblemException(404, 'CONFIG_NOT_FOUND', 'no such key');
        return { key: req.key, value: `${req.tenantId}:${req.key}` };
      },
      'test',
    );
    await expect(bus.request('core.config.get', { tenantId: 't1', key: 'A' })).resolves.toEqual({ key: 'A', value: 't1:A' });
    await expect(bus.request('core.config.get', { tenantId: 't1', key: 'missing' })).rejects.toMatchObject({
      code: 'CONFIG_NOT_FOUND',
      status: 404,
    });
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
    const queue = new WorkQueue<Work>(nats, {
      payload: Work,
      stream: 'TESTJOBS',
      subject: 'jobs.test',
      durable: 'test-workers',
      maxDeliver: 3,
      ackWaitMs: 5000,
      retryDelayMs: 50,
    });
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

  it("validates every received payload against its subject's class", async () => {
    const nc = await nats.get();
    const raw = async (subject: string, payload: string) =>
      JSON.parse(
        new TextDecoder().decode((await nc.request(nats.subject(subject), new TextEncoder().encode(payload), { timeout: 1000 })).data),
      );
    let served = 0;
    await bus.serve(
      'authz.principal.resolve',
      async () => {
        served += 1;
        return { authType: 'internal', teams: [], roles: [], isSystemAdmin: false };
      },
      'test',
    );
    for (const payload of [
      '{"tenantId":"t1","userId":"u","idpId":"i"}',
      '{"tenantId":"t1","userId":"u","idpId":"i","groups":"admins"}',
      'not json',
      '[]',
    ]) {
      expect(await raw('authz.principal.resolve', payload)).toMatchObject({ ok: false, error: { status: 400, code: 'INVALID_MESSAGE' } });
    }
    expect(served).toBe(0);
    await expect(bus.request('authz.principal.resolve', { tenantId: 't1', userId: 'u', idpId: 'i', groups: [] })).resolves.toMatchObject({
      isSystemAdmin: false,
    });

    // a reply that breaks the contract is a 502, never passed on as data
    await bus.serve('core.flags.list', async () => ({ flags: 'none' }) as never, 'test');
    await expect(bus.request('core.flags.list', { tenantId: 't1' })).rejects.toMatchObject({
      code: 'DEPENDENCY_REPLY_INVALID',
      status: 502,
    });

    // an event without its fields is dropped; a valid one is delivered
    const seen: unknown[] = [];
    await bus.subscribe('authz.membership.changed', (event) => void seen.push(event));
    nc.publish(nats.subject('authz.membership.changed'), new TextEncoder().encode('{"userIds":["u"]}'));
    nc.publish(nats.subject('authz.membership.changed'), new TextEncoder().encode('{"tenantId":"t1","userIds":"u"}'));
    await bus.publish('authz.membership.changed', { tenantId: 't1', userIds: ['u'] });
    await eventually(async () => expect(seen).toEqual([{ tenantId: 't1', userIds: ['u'] }]));
  });

  it('takes a work message that breaks the contract off the queue at once, without running or retrying it', async () => {
    const queue = new WorkQueue<Work>(nats, {
      payload: Work,
      stream: 'BADJOBS',
      subject: 'jobs.bad',
      durable: 'bad-workers',
      maxDeliver: 3,
      ackWaitMs: 5000,
      retryDelayMs: 50,
    });
    await queue.ensure();
    const ran: number[] = [];
    const dead: unknown[] = [];
    queue.start(
      async ({ n }) => void ran.push(n),
      async (letter) => void dead.push(letter),
    );
    const js = (await nats.get()).jetstream();
    await js.publish(nats.subject('jobs.bad'), new TextEncoder().encode('{"n":"one"}'));
    await queue.enqueue({ n: 7 }, 'good-7');
    await eventually(async () => expect(ran).toEqual([7]));
    const jsm = await (await nats.get()).jetstreamManager();
    await eventually(async () => expect((await jsm.consumers.info(nats.streamName('BADJOBS'), 'bad-workers')).num_ack_pending).toBe(0));
    expect(ran).toEqual([7]);
    expect(dead).toEqual([]);
    await queue.stop();
  });
});
