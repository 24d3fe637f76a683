import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '@lib/auth';

export class ConnectionCheckResponse {
  @ApiProperty({ description: 'The profile (user) id of the caller' })
  profileId: string;

  @ApiProperty()
  tenantId: string;
}

@ApiTags('extensions')
@Controller('api/costasset/extensions')
export class ExtensionsController {
  @Get('test')
  @ApiOperation({ summary: 'Checks the tenant connection; lists the profile id of the user' })
  @ApiOkResponse({ type: ConnectionCheckResponse })
  test(@CurrentPrincipal() principal: Principal): ConnectionCheckResponse {
    return { profileId: principal.userId, tenantId: principal.tenantId };
  }
}
