import { BudgetThresholdCrossed, MessageBus, NatsConnectionProvider } from '@lib/messaging';
import type { Platform } from './platform';

/** A NATS client in the platform's namespace, for tests that publish or observe events. */
export async function natsProbe(platform: Platform): Promise<{ bus: MessageBus; close(): Promise<void> }> {
  const nats = new NatsConnectionProvider({ servers: platform.env.NATS_URL ?? '', name: 'e2e-probe', requestTimeoutMs: 3000, namespace: platform.env.NATS_NAMESPACE });
  await nats.get();
  return { bus: new MessageBus(nats), close: () => nats.onApplicationShutdown() };
}

export async function collectThresholdEvents(bus: MessageBus): Promise<BudgetThresholdCrossed[]> {
  const seen: BudgetThresholdCrossed[] = [];
  await bus.subscribe('costasset.budget.threshold', (event) => void seen.push(event));
  return seen;
}
