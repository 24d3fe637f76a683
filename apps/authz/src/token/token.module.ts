import { Module } from '@nestjs/common';
import { DirectoryModule } from '../directory/directory.module';
import { IdentityModule } from '../identity/identity.module';
import { SessionsModule } from '../sessions/sessions.module';
import { RefreshGroups } from './refresh-groups';
import { SessionRevocation } from './session-revocation.service';
import { TokenController } from './token.controller';
import { TokenService } from './token.service';

@Module({
  imports: [IdentityModule, SessionsModule, DirectoryModule],
  controllers: [TokenController],
  providers: [TokenService, RefreshGroups, SessionRevocation],
  exports: [SessionRevocation],
})
export class TokenModule {}
