import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { TenantRepository } from '@lib/persistence';
import { JOB, JobRecord } from '../jobs/schemas/job.schema';
import { ReportOutput } from '../report-models/schemas/report-output.schema';

/** Saved report executions, read here only to expire them. */
@Injectable()
export class ReportOutputStore extends TenantRepository<ReportOutput> {
  constructor(@InjectModel(ReportOutput.name) model: Model<ReportOutput>) {
    super(model);
  }
}

/** Job records, read here only to expire finished ones. */
@Injectable()
export class JobRecordStore extends TenantRepository<JobRecord> {
  constructor(@InjectModel(JOB) model: Model<JobRecord>) {
    super(model);
  }
}
