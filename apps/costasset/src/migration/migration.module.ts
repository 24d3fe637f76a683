import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { CostassetEnvironment } from '../costasset.environment';
import { JobsModule } from '../jobs/jobs.module';
import { AccountMigrationHandler } from './account-migration.handler';
import { MigrationController } from './migration.controller';
import { BillingAccountRepository, MigrationRecordRepository, MigrationRepository } from './migration.repositories';
import { MigrationService } from './migration.service';
import { BILLING_ACCOUNT, BillingAccountSchema } from './schemas/billing-account.schema';
import { MIGRATION_RECORD, MigrationRecordSchema } from './schemas/migration-record.schema';
import { AccountMigrationSchema, MIGRATION } from './schemas/migration.schema';
import { loadMigrationKey, TokenCipher } from './token-cipher';

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
      provide: TokenCipher,
      inject: [CostassetEnvironment],
      useFactory: (env: CostassetEnvironment) =>
        new TokenCipher(
          loadMigrationKey({
            base64Key: env.MIGRATION_ENCRYPTION_KEY,
            devKeysDir: env.DEV_KEYS_DIR,
            allowDevKey: env.NODE_ENV !== 'production',
          }),
        ),
    },
  ],
})
export class MigrationModule {}
