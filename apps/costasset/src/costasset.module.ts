import { DynamicModule, Module } from '@nestjs/common';
import { AccessTokenVerifier, AuthModule, PrincipalResolver, TokenVerifier } from '@lib/auth';
import { HealthModule } from '@lib/http';
import { NatsReadinessProbe } from '@lib/messaging';
import { MongoReadinessProbe } from '@lib/persistence';
import { PlatformModule } from '@lib/platform';
import { AllocationModule } from './allocation/allocation.module';
import { AnomaliesModule } from './anomalies/anomalies.module';
import { BudgetsModule } from './budgets/budgets.module';
import { ConnectionsModule } from './connections/connections.module';
import { CostassetEnvironment } from './costasset.environment';
import { CostsModule } from './costs/costs.module';
import { CurrencyModule } from './currency/currency.module';
import { DataManagementModule } from './data-management/data-management.module';
import { ExtensionsModule } from './extensions/extensions.module';
import { FeatureFlagsModule } from './feature-flags/feature-flags.module';
import { FocusExportModule } from './focus-export/focus-export.module';
import { HousekeepingModule } from './housekeeping/housekeeping.module';
import { ImportsModule } from './imports/imports.module';
import { JobsModule } from './jobs/jobs.module';
import { LineItemsModule } from './line-items/line-items.module';
import { MigrationModule } from './migration/migration.module';
import { NotificationsModule } from './notifications/notifications.module';
import { ObjectStorageProvidersModule } from './object-storage-providers/object-storage-providers.module';
import { ObjectStoreReadinessProbe } from './object-store/object-store-readiness.probe';
import { ObjectStoreModule } from './object-store/object-store.module';
import { RemotePrincipalResolver } from './principal/remote-principal.resolver';
import { ProviderMetadataModule } from './provider-metadata/provider-metadata.module';
import { RemediationModule } from './remediation/remediation.module';
import { ReportModelsModule } from './report-models/report-models.module';
import { ResourceGroupsModule } from './resource-groups/resource-groups.module';
import { IngestionModule } from './uploads/ingestion/ingestion.module';
import { UploadsModule } from './uploads/uploads.module';

/** The cost and asset management service. */
@Module({})
export class CostassetModule {
  static forRoot(env: CostassetEnvironment): DynamicModule {
    return {
      module: CostassetModule,
      imports: [
        PlatformModule.forRoot('costasset', env),
        ObjectStoreModule,
        AuthModule.forRoot({
          verifier: { provide: AccessTokenVerifier, useValue: TokenVerifier.withJwks(env.jwksUrl, env.JWT_ISSUER) },
          resolver: { provide: PrincipalResolver, useClass: RemotePrincipalResolver },
        }),
        HealthModule.withProbes([MongoReadinessProbe, NatsReadinessProbe, ObjectStoreReadinessProbe]),
        CurrencyModule,
        FeatureFlagsModule,
        ExtensionsModule,
        LineItemsModule,
        CostsModule,
        JobsModule,
        UploadsModule,
        ImportsModule,
        FocusExportModule,
        ProviderMetadataModule,
        ObjectStorageProvidersModule,
        ResourceGroupsModule,
        ReportModelsModule,
        BudgetsModule,
        AnomaliesModule,
        AllocationModule,
        ConnectionsModule,
        IngestionModule,
        DataManagementModule,
        HousekeepingModule,
        RemediationModule,
        MigrationModule,
        NotificationsModule,
      ],
    };
  }
}
