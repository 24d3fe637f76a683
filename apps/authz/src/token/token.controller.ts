import { Body, Controller, Get, HttpCode, Inject, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { CurrentPrincipal, Principal, Public, SignedIn, SigningKey } from '@lib/auth';
import { AlwaysServed } from '@lib/http';
import { MeResponse } from './dto/me.dto';
import { AccessTokenResponse, RefreshTokenRequest } from './dto/refresh-token.dto';
import { RevokeTokenRequest } from './dto/revoke-token.dto';
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
  @ApiOperation({
    summary: 'Exchange a refresh token for a new corelite-token and the next refresh token',
    description:
      'Rotation: the refresh token sent is spent, and the answer holds the next one of its session. ' +
      'Spending a spent refresh token again (a stolen copy, or two concurrent refreshes) revokes the whole session: ' +
      'its refresh tokens and the access tokens issued with them. For an IdP mapped to a `hybrid` ' +
      "configuration, `groups` are read again from the tenant's directory when one is configured.",
  })
  @ApiOkResponse({ type: AccessTokenResponse })
  @ApiUnauthorizedResponse({
    description:
      'The refresh token is invalid or expired (`TOKEN_*`), its session is revoked or ' +
      'it was spent before (`TOKEN_REVOKED`), or its user is disabled (`USER_DISABLED`)',
  })
  @ApiServiceUnavailableResponse({
    description: '`DIRECTORY_UNAVAILABLE`: hybrid groups could not be read; the refresh token is not spent, retry',
  })
  refresh(@Body() body: RefreshTokenRequest): Promise<AccessTokenResponse> {
    return this.tokens.refresh(body.refresh_token);
  }

  @Public()
  @Post('token/revoke')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Revoke a refresh token and its whole session (RFC 7009)',
    description:
      'Ends the session of the refresh token: its refresh tokens and the access tokens issued ' +
      'with them are refused from then on, by every instance of every service within a second. ' +
      '200 with an empty body for any token, including an invalid, expired or already revoked one.',
  })
  @ApiOkResponse({ description: 'Revoked, or nothing to revoke' })
  @ApiBadRequestResponse({ description: '`VALIDATION_FAILED`: no `token`, or an unknown field' })
  revoke(@Body() body: RevokeTokenRequest): Promise<void> {
    return this.tokens.revoke(body.token);
  }

  @Get('me')
  @SignedIn()
  @ApiOperation({ summary: 'The caller: user, tenant, IdP, groups, teams, roles and auth type' })
  @ApiOkResponse({ type: MeResponse })
  me(@CurrentPrincipal() principal: Principal): MeResponse {
    return MeResponse.from(principal);
  }
}
