import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { TenantRepository } from '@lib/persistence';
import { AuditRecord } from './schemas/audit-record.schema';

@Injectable()
export class AuditRepository extends TenantRepository<AuditRecord> {
  constructor(@InjectModel(AuditRecord.name) model: Model<AuditRecord>) {
    super(model);
  }
}
