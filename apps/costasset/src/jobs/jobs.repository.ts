import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { TenantRepository } from '@lib/persistence';
import { JOB, JobRecord } from './schemas/job.schema';

@Injectable()
export class JobsRepository extends TenantRepository<JobRecord> {
  constructor(@InjectModel(JOB) model: Model<JobRecord>) {
    super(model);
  }
}
