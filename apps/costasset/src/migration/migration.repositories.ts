import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { TenantRepository } from '@lib/persistence';
import { BILLING_ACCOUNT, BillingAccount } from './schemas/billing-account.schema';
import { MIGRATION_RECORD, MigrationRecord } from './schemas/migration-record.schema';
import { AccountMigration, MIGRATION } from './schemas/migration.schema';

@Injectable()
export class MigrationRepository extends TenantRepository<AccountMigration> {
  constructor(@InjectModel(MIGRATION) model: Model<AccountMigration>) {
    super(model);
  }
}

@Injectable()
export class BillingAccountRepository extends TenantRepository<BillingAccount> {
  constructor(@InjectModel(BILLING_ACCOUNT) model: Model<BillingAccount>) {
    super(model);
  }
}

@Injectable()
export class MigrationRecordRepository extends TenantRepository<MigrationRecord> {
  constructor(@InjectModel(MIGRATION_RECORD) model: Model<MigrationRecord>) {
    super(model);
  }
}
