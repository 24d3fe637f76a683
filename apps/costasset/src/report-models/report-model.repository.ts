import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { TenantRepository } from '@lib/persistence';
import { ReportModel } from './schemas/report-model.schema';

@Injectable()
export class ReportModelRepository extends TenantRepository<ReportModel> {
  constructor(@InjectModel(ReportModel.name) model: Model<ReportModel>) {
    super(model);
  }
}
