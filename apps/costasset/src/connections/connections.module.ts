import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { SecretSealer, secretSealerFrom } from '@lib/config';
import { CostassetEnvironment } from '../costasset.environment';
import { JobsModule } from '../jobs/jobs.module';
import { UploadsModule } from '../uploads/uploads.module';
import { ConnectionChecker } from './connection-checker';
import { ConnectionScheduler } from './connection-scheduler';
import { ConnectionSources } from './connection-sources';
import { ConnectionSyncHandler } from './connection-sync.handler';
import {
  ConnectionManifestRepository,
  ConnectionPeriodRepository,
  ConnectionRepository,
  ConnectionRunRepository,
} from './connection.repositories';
import { ConnectionsController } from './connections.controller';
import { ConnectionsService } from './connections.service';
import { DeliveryCopier } from './delivery-copier';
import { CONNECTION, ConnectionSchema } from './schemas/connection.schema';
import { CONNECTION_RUN, ConnectionRunSchema } from './schemas/connection-run.schema';
import {
  CONNECTION_MANIFEST,
  CONNECTION_PERIOD,
  ConnectionManifestSchema,
  ConnectionPeriodSchema,
} from './schemas/connection-state.schema';

/**
 * Data connections (docs/connections.md): buckets and containers the clouds write billing exports
 * to, synced on a schedule or on request through the FOCUS import.
 */
@Module({
  imports: [
    MongooseModule.forFeature([
      { name: CONNECTION, schema: ConnectionSchema },
      { name: CONNECTION_RUN, schema: ConnectionRunSchema },
      { name: CONNECTION_PERIOD, schema: ConnectionPeriodSchema },
      { name: CONNECTION_MANIFEST, schema: ConnectionManifestSchema },
    ]),
    JobsModule,
    UploadsModule,
  ],
  controllers: [ConnectionsController],
  providers: [
    ConnectionRepository,
    ConnectionRunRepository,
    ConnectionPeriodRepository,
    ConnectionManifestRepository,
    ConnectionSources,
    ConnectionChecker,
    ConnectionsService,
    ConnectionScheduler,
    ConnectionSyncHandler,
    DeliveryCopier,
    {
      provide: SecretSealer,
      inject: [CostassetEnvironment],
      useFactory: (env: CostassetEnvironment) => secretSealerFrom(env, 'CONNECTIONS_ENCRYPTION_KEY', 'connections-encryption.key'),
    },
  ],
})
export class ConnectionsModule {}
