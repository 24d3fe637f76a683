import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { connect, NatsConnection } from 'nats';

export class NatsOptions {
  servers!: string;
  name!: string;
  requestTimeoutMs!: number;
  /** Prefix of every subject and stream name, so that deployments (or test runs) can share a NATS cluster. */
  namespace?: string;
  /** This service's NATS user and password (the server's `authorization` block gives each user its subjects). */
  user?: string;
  password?: string;
}

/**
 * One connection per process, shared by request/reply, events and JetStream. It keeps
 * reconnecting forever, so a NATS restart heals without restarting the service.
 */
@Injectable()
export class NatsConnectionProvider implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Nats');
  private connection?: Promise<NatsConnection>;
  private connected = false;

  constructor(readonly options: NatsOptions) {}

  /** Starts connecting at start-up without waiting: the service starts (not ready) while NATS is down. */
  onModuleInit(): void {
    this.get().catch((error: unknown) => this.logger.error({ err: error }, 'cannot connect to NATS'));
  }

  get(): Promise<NatsConnection> {
    this.connection ??= this.open();
    return this.connection;
  }

  /** The subject as it is on the wire, with this deployment's namespace. */
  subject(name: string): string {
    return this.options.namespace ? `${this.options.namespace}.${name}` : name;
  }

  /** A JetStream stream name with this deployment's namespace (stream names allow no dots). */
  streamName(name: string): string {
    return this.options.namespace ? `${this.options.namespace.replace(/[^A-Za-z0-9_-]/g, '_')}_${name}` : name;
  }

  isConnected(): boolean {
    return this.connected;
  }

  private async open(): Promise<NatsConnection> {
    const nc = await connect({
      servers: this.options.servers.split(','),
      name: this.options.name,
      user: this.options.user,
      pass: this.options.password,
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
