import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { TenantRepository } from '@lib/persistence';
import { ReportOutput } from './schemas/report-output.schema';

@Injectable()
export class ReportOutputRepository extends TenantRepository<ReportOutput> {
  constructor(@InjectModel(ReportOutput.name) model: Model<ReportOutput>) {
    super(model);
  }
}
