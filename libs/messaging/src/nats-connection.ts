import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { connect, NatsConnection } from 'nats';

export class NatsOptions {
  servers!: string;
  name!: string;
  requestTimeoutMs!: number;
}

/**
 * One connection per process, shared by request/reply, events and JetStream. It keeps
 * reconnecting forever, so a NATS restart heals without restarting the service.
 */
@Injectable()
export class NatsConnectionProvider implements OnApplicationShutdown {
  private readonly logger = new Logger('Nats');
  private connection?: Promise<NatsConnection>;
  private connected = false;

  constructor(readonly options: NatsOptions) {}

  get(): Promise<NatsConnection> {
    this.connection ??= this.open();
    return this.connection;
  }

  isConnected(): boolean {
    return this.connected;
  }

  private async open(): Promise<NatsConnection> {
    const nc = await connect({
      servers: this.options.servers.split(','),
      name: this.options.name,
      reconnect: true,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      waitOnFirstConnect: true,
      pingInterval: 5000,
      maxPingOut: 2,
    });
    this.connected = true;
    void this.watch(nc);
    this.logger.log(`connected to ${nc.getServer()}`);
    return nc;
  }

  private async watch(nc: NatsConnection): Promise<void> {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect') this.connected = false;
      if (status.type === 'reconnect') this.connected = true;
      if (status.type === 'disconnect' || status.type === 'reconnect') this.logger.warn(`nats ${status.type}`);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.connection) return;
    const nc = await this.connection;
    this.connected = false;
    await nc.drain().catch(() => nc.close());
  }
}
