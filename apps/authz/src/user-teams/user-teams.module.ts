import { Module } from '@nestjs/common';
import { DirectoryModule } from '../directory/directory.module';
import { IdentityModule } from '../identity/identity.module';
import { MembershipEvents } from './membership-events';
import { TeamsController } from './teams.controller';
import { TeamsService } from './teams.service';
import { UserTeamsController } from './user-teams.controller';
import { UserTeamsService } from './user-teams.service';

/** Teams, users and user-team membership (docs/interface.md#teams-users-and-memberships). */
@Module({
  imports: [IdentityModule, DirectoryModule],
  controllers: [TeamsController, UserTeamsController],
  providers: [TeamsService, UserTeamsService, MembershipEvents],
})
export class UserTeamsModule {}
