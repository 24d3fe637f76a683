import { Global, Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { AuditRepository } from './audit.repository';
import { AuditService } from './audit.service';
import { AuditRecord, AuditRecordSchema } from './schemas/audit-record.schema';

@Global()
@Module({
  imports: [MongooseModule.forFeature([{ name: AuditRecord.name, schema: AuditRecordSchema }])],
  providers: [AuditRepository, AuditService],
  exports: [AuditService],
})
export class AuditModule {}
