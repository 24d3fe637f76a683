import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { TenantRepository } from '@lib/persistence';
import { Team } from './schemas/team.schema';

@Injectable()
export class TeamRepository extends TenantRepository<Team> {
  constructor(@InjectModel(Team.name) model: Model<Team>) {
    super(model);
  }
}
