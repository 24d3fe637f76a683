import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { TenantRepository } from '@lib/persistence';
import { ThresholdCrossing } from './schemas/threshold-crossing.schema';

@Injectable()
export class ThresholdCrossingRepository extends TenantRepository<ThresholdCrossing> {
  constructor(@InjectModel(ThresholdCrossing.name) model: Model<ThresholdCrossing>) {
    super(model);
  }
}
