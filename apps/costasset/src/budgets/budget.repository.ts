import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { TenantRepository } from '@lib/persistence';
import { Budget } from './schemas/budget.schema';

@Injectable()
export class BudgetRepository extends TenantRepository<Budget> {
  constructor(@InjectModel(Budget.name) model: Model<Budget>) {
    super(model);
  }
}
