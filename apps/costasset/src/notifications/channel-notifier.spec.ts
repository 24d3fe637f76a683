import { ChannelNotifier } from './channel-notifier';
import { DeliveryDispatcher } from './delivery-dispatcher';
import type { DeliveryQueue } from './delivery-queue';
import type { NotificationDeliveryRepository, NotificationSubscriptionRepository } from './notifications.repositories';
import type { NotificationMessage } from './notifier';

/** The deliveries' unique (tenant, channel, key) index, in memory: a second insert fails as MongoDB's duplicate key does. */
class InMemoryDeliveries {
  readonly docs: Record<string, unknown>[] = [];

  async create(tenantId: string, doc: Record<string, unknown>) {
    if (this.docs.some((d) => d.tenantId === tenantId && d.channelId === doc.channelId && d.idempotencyKey === doc.idempotencyKey)) {
      throw Object.assign(new Error('E11000 duplicate key error'), { code: 11000 });
    }
    const stored = { ...doc, tenantId, _id: `d${this.docs.length}` };
    this.docs.push(stored);
    return stored;
  }

  async deleteOne(tenantId: string, filter: { _id: unknown }) {
    const index = this.docs.findIndex((d) => d.tenantId === tenantId && d._id === filter._id);
    if (index >= 0) this.docs.splice(index, 1);
    return index >= 0 ? 1 : 0;
  }
}

const message: NotificationMessage = { title: 'Budget at 80%', summary: 'Spent 800 of 1000.', facts: [], data: { percent: 80 } };

describe('ChannelNotifier', () => {
  let deliveries: InMemoryDeliveries;
  let enqueued: { tenantId: string; deliveryId: string }[];
  let queue: { enqueue: jest.Mock };
  let subscriptions: { matching: jest.Mock };
  let notifier: ChannelNotifier;

  beforeEach(() => {
    deliveries = new InMemoryDeliveries();
    enqueued = [];
    queue = { enqueue: jest.fn(async (m: { tenantId: string; deliveryId: string }) => void enqueued.push(m)) };
    subscriptions = {
      matching: jest.fn(async (_tenant: string, topic: string, budgetId?: string) => {
        if (topic === 'anomalies') return [{ channelIds: ['c3'] }];
        return [{ channelIds: ['c1', 'c2'], budgetId: null }, ...(budgetId === 'b1' ? [{ channelIds: ['c2'], budgetId: 'b1' }] : [])];
      }),
    };
    const dispatcher = new DeliveryDispatcher(deliveries as unknown as NotificationDeliveryRepository, queue as unknown as DeliveryQueue);
    notifier = new ChannelNotifier(subscriptions as unknown as NotificationSubscriptionRepository, dispatcher);
  });

  it('queues one delivery per subscribed channel, each channel once however many subscriptions name it', async () => {
    expect(await notifier.notify('t1', { kind: 'budget', budgetId: 'b1' }, message, 'budget:b1:2026-01:actual:80')).toBe(2);
    expect(deliveries.docs.map((d) => d.channelId)).toEqual(['c1', 'c2']);
    expect(deliveries.docs[0]).toMatchObject({ status: 'queued', attempts: 0, title: 'Budget at 80%', data: { percent: 80 } });
    expect(enqueued).toEqual([
      { tenantId: 't1', deliveryId: 'd0' },
      { tenantId: 't1', deliveryId: 'd1' },
    ]);
    expect(subscriptions.matching).toHaveBeenCalledWith('t1', 'budget', 'b1');
  });

  it('sends nothing again for the same idempotency key (another instance already queued it)', async () => {
    const key = 'budget:b1:2026-01:actual:80';
    await notifier.notify('t1', { kind: 'budget', budgetId: 'b1' }, message, key);
    expect(await notifier.notify('t1', { kind: 'budget', budgetId: 'b1' }, message, key)).toBe(0);
    expect(deliveries.docs).toHaveLength(2);
    expect(enqueued).toHaveLength(2);
  });

  it('queues the same event to two instances at once only once', async () => {
    const [a, b] = await Promise.all([
      notifier.notify('t1', { kind: 'anomalies' }, message, 'anomaly:x'),
      notifier.notify('t1', { kind: 'anomalies' }, message, 'anomaly:x'),
    ]);
    expect(a + b).toBe(1);
    expect(enqueued).toHaveLength(1);
  });

  it('keeps tenants and keys apart', async () => {
    await notifier.notify('t1', { kind: 'anomalies' }, message, 'anomaly:x');
    expect(await notifier.notify('t2', { kind: 'anomalies' }, message, 'anomaly:x')).toBe(1);
    expect(await notifier.notify('t1', { kind: 'anomalies' }, message, 'anomaly:y')).toBe(1);
  });

  it('removes the record when the queue refuses it, so that a later call with the key can queue it', async () => {
    queue.enqueue.mockRejectedValueOnce(new Error('queue unavailable'));
    await expect(notifier.notify('t1', { kind: 'anomalies' }, message, 'anomaly:z')).rejects.toThrow('queue unavailable');
    expect(deliveries.docs).toHaveLength(0);
    expect(await notifier.notify('t1', { kind: 'anomalies' }, message, 'anomaly:z')).toBe(1);
  });

  it('never sends test messages through subscriptions', async () => {
    expect(await notifier.notify('t1', { kind: 'test' }, message, 'test:1')).toBe(0);
    expect(subscriptions.matching).not.toHaveBeenCalled();
  });
});
