import { DynamicModule, Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import type { Connection } from 'mongoose';
import { DatabaseMetrics } from './database-metrics';
import { DEFAULT_TIME_LIMITS, setTimeLimits, TimeLimits } from './time-limits';
import { UniqueIndexCheck } from './unique-indexes';

export interface DatabaseOptions {
  autoIndex?: boolean;
  /** `maxTimeMS` of each kind of operation (`MONGODB_MAX_TIME_*_MS`). */
  timeLimits?: TimeLimits;
}

/** The mongoose connection with settings that fail fast instead of queueing forever, time limits and command metrics. */
@Module({})
export class DatabaseModule {
  static forRoot(uri: string, appName: string, options: DatabaseOptions = {}): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        MongooseModule.forRoot(uri, {
          appName,
          serverSelectionTimeoutMS: 5000,
          bufferCommands: false,
          autoIndex: options.autoIndex ?? true,
          retryAttempts: 10,
          retryDelay: 1000,
          lazyConnection: false,
          // command monitoring feeds the database metrics (the driver no longer copies commands for it)
          monitorCommands: true,
          connectionFactory: (connection: Connection) => {
            setTimeLimits(connection, options.timeLimits ?? DEFAULT_TIME_LIMITS);
            return connection;
          },
        }),
      ],
      providers: [UniqueIndexCheck, DatabaseMetrics],
      exports: [MongooseModule],
    };
  }
}
