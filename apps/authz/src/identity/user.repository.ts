import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { IdpKeyedRepository } from './idp-keyed.repository';
import { User } from './schemas/user.schema';

@Injectable()
export class UserRepository extends IdpKeyedRepository<User> {
  constructor(@InjectModel(User.name) model: Model<User>) {
    super(model, { tenantId: 1, userId: 1 });
  }
}
