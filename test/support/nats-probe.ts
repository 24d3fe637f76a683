import { BudgetThresholdCrossed, MessageBus, NatsConnectionProvider } from '@lib/messaging';
import { Metrics } from '@lib/metrics';
import type { Platform } from './platform';

/** A NATS client in the platform's namespace, as the stack's tools user, for tests that publish or observe events. */
export interface NatsProbe {
  bus: MessageBus;
  /** Round trip to the server: subscriptions made before it are in place. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export async function natsProbe(platform: Platform): Promise<NatsProbe> {
  const { NATS_URL, NATS_NAMESPACE, NATS_USER, NATS_PASSWORD } = platform.env;
  const nats = new NatsConnectionProvider({
    servers: NATS_URL ?? '',
    name: 'e2e-probe',
    requestTimeoutMs: 3000,
    namespace: NATS_NAMESPACE,
    user: NATS_USER,
    password: NATS_PASSWORD,
  });
  const connection = await nats.get();
  return {
    bus: new MessageBus(nats, new Metrics('e2e-probe')),
    flush: () => connection.flush(),
    close: () => nats.onApplicationShutdown(),
  };
}

export async function collectThresholdEvents(bus: MessageBus): Promise<BudgetThresholdCrossed[]> {
  const seen: BudgetThresholdCrossed[] = [];
  await bus.subscribe('costasset.budget.threshold', (event) => void seen.push(event));
  return seen;
}
