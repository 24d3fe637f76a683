import { Controller, Get, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal, SystemAdminOnly } from '@lib/auth';
import { DEFAULT_PAGE_SIZE } from '@lib/http';
import { AuditService } from './audit.service';
import { AuditPageResponse } from './dto/audit-page.dto';
import { AuditQuery } from './dto/audit-query.dto';

@ApiTags('audit')
@Controller('core/authorization/v1/audit')
export class AuditController {
  constructor(private readonly audit: AuditService) {}

  @Get()
  @SystemAdminOnly()
  @ApiOperation({
    summary: 'Configuration changes of the tenant (System Admin)',
    description: 'Who changed what and when, with the state before and after (secrets masked). Cursor pagination, oldest first.',
  })
  @ApiOkResponse({ type: AuditPageResponse })
  @ApiBadRequestResponse({ description: '`VALIDATION_FAILED`: limit outside 1–1000, or a cursor that is not a `nextCursor`' })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: AuditQuery): Promise<AuditPageResponse> {
    return AuditPageResponse.from(
      await this.audit.page(
        principal.tenantId,
        { resource: query.resource, action: query.action },
        query.limit ?? DEFAULT_PAGE_SIZE,
        query.cursor,
      ),
    );
  }
}
