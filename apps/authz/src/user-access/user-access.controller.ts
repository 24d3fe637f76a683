import { Controller, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiConflictResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal, SystemAdminOnly } from '@lib/auth';
import { userKeyOf } from '../user-teams/user-key-of';
import { UserAccessQuery, UserAccessResponse } from './dto/user-access.dto';
import { UserAccessService } from './user-access.service';

/** A System Admin takes a user's access away, and gives it back. */
@ApiTags('teams and users')
@SystemAdminOnly()
@Controller('authorization/v2/users/:user_id')
export class UserAccessController {
  constructor(private readonly service: UserAccessService) {}

  @Post('disable')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Disable a user and revoke all its sessions',
    description:
      'Its access tokens are refused with `401 USER_DISABLED` by every instance of every service within a second, ' +
      'its refresh tokens too, and every session it holds is revoked. A user is its subject as one IdP asserts it: ' +
      "`idp_id` names the IdP (the caller's when omitted). Idempotent. 409 `CANNOT_DISABLE_SELF` for the caller itself.",
  })
  @ApiParam({ name: 'user_id', description: 'User id (URL-encoded)' })
  @ApiOkResponse({ type: UserAccessResponse })
  @ApiNotFoundResponse({ description: '`USER_NOT_FOUND`' })
  @ApiConflictResponse({ description: '`CANNOT_DISABLE_SELF`' })
  disable(
    @CurrentPrincipal() principal: Principal,
    @Param('user_id') userId: string,
    @Query() query: UserAccessQuery,
  ): Promise<UserAccessResponse> {
    return this.service.disable(principal, userKeyOf(principal, { user_id: userId, idp_id: query.idp_id }));
  }

  @Post('enable')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Enable a disabled user again',
    description: 'Its tokens are accepted again; the sessions revoked when it was disabled stay revoked, so it signs in anew. Idempotent.',
  })
  @ApiParam({ name: 'user_id', description: 'User id (URL-encoded)' })
  @ApiOkResponse({ type: UserAccessResponse })
  @ApiNotFoundResponse({ description: '`USER_NOT_FOUND`' })
  enable(
    @CurrentPrincipal() principal: Principal,
    @Param('user_id') userId: string,
    @Query() query: UserAccessQuery,
  ): Promise<UserAccessResponse> {
    return this.service.enable(principal, userKeyOf(principal, { user_id: userId, idp_id: query.idp_id }));
  }
}
