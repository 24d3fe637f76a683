import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { SessionsModule } from '../sessions/sessions.module';
import { AccessRefusals } from './access-refusals';
import { BootstrapService } from './bootstrap.service';
import { IdpKeyMigration } from './idp-key-migration';
import { MembershipRepository } from './membership.repository';
import { OrgRepository } from './org.repository';
import { PrincipalHandler } from './principal.handler';
import { PrincipalService } from './principal.service';
import { RoleRepository } from './role.repository';
import { Membership, MembershipSchema } from './schemas/membership.schema';
import { Org, OrgSchema } from './schemas/org.schema';
import { Role, RoleSchema } from './schemas/role.schema';
import { Team, TeamSchema } from './schemas/team.schema';
import { User, UserSchema } from './schemas/user.schema';
import { TeamRepository } from './team.repository';
import { UserRepository } from './user.repository';

const repositories = [UserRepository, TeamRepository, OrgRepository, RoleRepository, MembershipRepository];

@Module({
  imports: [
    MongooseModule.forFeature([
      { name: User.name, schema: UserSchema },
      { name: Team.name, schema: TeamSchema },
      { name: Org.name, schema: OrgSchema },
      { name: Role.name, schema: RoleSchema },
      { name: Membership.name, schema: MembershipSchema },
    ]),
    SessionsModule,
  ],
  providers: [...repositories, IdpKeyMigration, BootstrapService, PrincipalService, PrincipalHandler, AccessRefusals],
  exports: [...repositories, BootstrapService, PrincipalService],
})
export class IdentityModule {}
