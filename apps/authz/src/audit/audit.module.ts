import { Global, Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { AuditController } from './audit.controller';
import { AuditRepository } from './audit.repository';
import { AuditService } from './audit.service';
import { AuditRecord, AuditRecordSchema } from './schemas/audit-record.schema';

@Global()
@Module({
  imports: [MongooseModule.forFeature([{ name: AuditRecord.name, schema: AuditRecordSchema }])],
  controllers: [AuditController],
  providers: [AuditRepository, AuditService],
  exports: [AuditService],
})
export class AuditModule {}
