import { Body, Controller, Get, HttpCode, Inject, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { AnyMember, CurrentPrincipal, Principal, Public, SigningKey } from '@lib/auth';
import { AlwaysServed } from '@lib/http';
import { MeResponse } from './dto/me.dto';
import { AccessTokenResponse, RefreshTokenRequest } from './dto/refresh-token.dto';
import { SIGNING_KEY } from './signing-key.provider';
import { TokenService } from './token.service';

@ApiTags('tokens')
@Controller('core/authorization/v1')
export class TokenController {
  constructor(
    private readonly tokens: TokenService,
    @Inject(SIGNING_KEY) private readonly key: SigningKey,
  ) {}

  @Public()
  @AlwaysServed()
  @Get('.well-known/jwks.json')
  @ApiOperation({ summary: 'Public keys that verify corelite-tokens (JWKS)' })
  jwks(): { keys: object[] } {
    return { keys: [this.key.publicJwk] };
  }

  @Public()
  @AlwaysServed()
  @Post('token/refresh')
  @HttpCode(200)
  @ApiOperation({ summary: 'Exchange a refresh token for a new corelite-token' })
  @ApiOkResponse({ type: AccessTokenResponse })
  @ApiUnauthorizedResponse({ description: 'The refresh token is invalid or expired' })
  refresh(@Body() body: RefreshTokenRequest): Promise<AccessTokenResponse> {
    return this.tokens.refresh(body.refresh_token);
  }

  @Get('me')
  @AnyMember()
  @ApiOperation({ summary: 'The caller: user, tenant, IdP, groups, teams, roles and auth type' })
  @ApiOkResponse({ type: MeResponse })
  me(@CurrentPrincipal() principal: Principal): MeResponse {
    return MeResponse.from(principal);
  }
}
