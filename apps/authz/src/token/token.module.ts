import { Module } from '@nestjs/common';
import { IdentityModule } from '../identity/identity.module';
import { TokenController } from './token.controller';
import { TokenService } from './token.service';

@Module({ imports: [IdentityModule], controllers: [TokenController], providers: [TokenService] })
export class TokenModule {}
