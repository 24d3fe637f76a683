import { createServer, Server } from 'node:http';
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';

export class MetricsListenerOptions {
  /** A port of its own for `GET /metrics`; `undefined` serves it on the service's port. */
  port?: number;
  host!: string;
}

/**
 * With `METRICS_PORT`, a second listener of the same application on `METRICS_HOST`: it answers
 * `/metrics` and nothing else, and the service's own port no longer answers `/metrics`
 * (`metricsPortFilter`).
 */
@Injectable()
export class MetricsListener implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Metrics');
  private server?: Server;

  constructor(
    private readonly options: MetricsListenerOptions,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { port, host } = this.options;
    if (port === undefined) return;
    const server = createServer(this.adapterHost.httpAdapter.getInstance());
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, () => resolve()));
    this.server = server;
    this.logger.log(`metrics at http://${host.includes(':') ? `[${host}]` : host}:${port}/metrics`);
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    await new Promise((resolve) => server.close(resolve));
    server.closeAllConnections();
  }
}
