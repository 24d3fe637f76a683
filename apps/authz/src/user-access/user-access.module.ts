import { Module } from '@nestjs/common';
import { IdentityModule } from '../identity/identity.module';
import { TokenModule } from '../token/token.module';
import { UserAccessController } from './user-access.controller';
import { UserAccessService } from './user-access.service';

/** Disabling and enabling users (System Admin). */
@Module({
  imports: [IdentityModule, TokenModule],
  controllers: [UserAccessController],
  providers: [UserAccessService],
})
export class UserAccessModule {}
