import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectConnection } from '@nestjs/mongoose';
import type { CommandFailedEvent, CommandSucceededEvent } from 'mongodb';
import type { Connection } from 'mongoose';
import { RequestAbandoned } from '@lib/core';
import { Metrics } from '@lib/metrics';

const MAX_TIME_MS_EXPIRED = 50;
/** Connection housekeeping, not the product's work. */
const UNTIMED = new Set(['hello', 'isMaster', 'ping', 'endSessions', 'saslStart', 'saslContinue', 'buildInfo']);

/** Times every command the driver sends (command monitoring) into `corelite_db_operation_duration_seconds`. */
@Injectable()
export class DatabaseMetrics implements OnModuleInit {
  constructor(
    @InjectConnection() private readonly connection: Connection,
    private readonly metrics: Metrics,
  ) {}

  onModuleInit(): void {
    const client = this.connection.getClient();
    client.on('commandSucceeded', (event: CommandSucceededEvent) => {
      if (!UNTIMED.has(event.commandName)) this.metrics.databaseOperation(event.commandName, 'ok', event.duration / 1000);
    });
    client.on('commandFailed', (event: CommandFailedEvent) => {
      if (UNTIMED.has(event.commandName)) return;
      const failure = event.failure as Error & { code?: number };
      const outcome = failure.code === MAX_TIME_MS_EXPIRED ? 'timeout' : failure instanceof RequestAbandoned ? 'abandoned' : 'error';
      this.metrics.databaseOperation(event.commandName, outcome, event.duration / 1000);
    });
  }
}
