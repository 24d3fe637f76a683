import { Injectable } from '@nestjs/common';
import type { ReadinessProbe } from '@lib/core';
import { NatsConnectionProvider } from './nats-connection';

@Injectable()
export class NatsReadinessProbe implements ReadinessProbe {
  readonly name = 'nats';

  constructor(private readonly nats: NatsConnectionProvider) {}

  async check(): Promise<void> {
    const nc = await this.nats.get();
    if (!this.nats.isConnected()) throw new Error('disconnected');
    await nc.flush();
  }
}
