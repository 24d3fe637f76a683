import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { SecretSealer, secretSealerFrom } from '@lib/config';
import { CostassetEnvironment } from '../costasset.environment';
import { JobsModule } from '../jobs/jobs.module';
import { AccountMigrationHandler } from './account-migration.handler';
import { MigrationController } from './migration.controller';
import { BillingAccountRepository, MigrationRecordRepository, MigrationRepository } from './migration.repositories';
import { MigrationService } from './migration.service';
import { BILLING_ACCOUNT, BillingAccountSchema } from './schemas/billing-account.schema';
import { MIGRATION_RECORD, MigrationRecordSchema } from './schemas/migration-record.schema';
import { AccountMigrationSchema, MIGRATION } from './schemas/migration.schema';

@Module({
  imports: [
    MongooseModule.forFeature([
      { name: MIGRATION, schema: AccountMigrationSchema },
      { name: BILLING_ACCOUNT, schema: BillingAccountSchema },
      { name: MIGRATION_RECORD, schema: MigrationRecordSchema },
    ]),
    JobsModule,
  ],
  controllers: [MigrationController],
  providers: [
    MigrationRepository,
    BillingAccountRepository,
    MigrationRecordRepository,
    MigrationService,
    AccountMigrationHandler,
    {
      provide: SecretSealer,
      inject: [CostassetEnvironment],
      useFactory: (env: CostassetEnvironment) => secretSealerFrom(env, 'MIGRATION_ENCRYPTION_KEY', 'migration-encryption.key'),
    },
  ],
})
export class MigrationModule {}
