import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { CostassetEnvironment } from '../costasset.environment';
import { ConnectionRepository } from './connection.repositories';
import { ConnectionsService } from './connections.service';
import { nextRunOf } from './sync-schedule';

/**
 * The timer of every instance: finds the connections whose scheduled sync is due and queues it.
 * Each due time is claimed by one instance (a conditional move of `nextSyncAt` to the next run),
 * and a sync already queued or running is not queued twice.
 */
@Injectable()
export class ConnectionScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ConnectionScheduler');
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly connections: ConnectionRepository,
    private readonly service: ConnectionsService,
    private readonly env: CostassetEnvironment,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep(), this.env.CONNECTIONS_SCHEDULE_CHECK_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Queues every due sync this instance claims; answers how many it queued. */
  async sweep(now = new Date()): Promise<number> {
    let queued = 0;
    try {
      for (const connection of await this.connections.dueAcrossTenants(now)) {
        const due = connection.nextSyncAt as Date;
        const next = connection.schedule ? nextRunOf(connection.schedule, now) : null;
        if (!(await this.connections.claimSchedule(connection.tenantId, connection.connectionId, due, next))) continue;
        const started = await this.service.requestSync(connection.tenantId, connection.connectionId, 'schedule');
        if (!started.alreadyRunning) queued++;
      }
    } catch (error) {
      this.logger.error({ err: error }, 'scheduled syncs not queued');
    }
    return queued;
  }
}
