import { Body, Controller, Get, HttpCode, Post, Query, Res } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentPrincipal, Principal, SystemAdminOnly } from '@lib/auth';
import { MigrationStatusResponse, MigrationStatusQuery, StartMigrationRequest, StartMigrationResponse } from './dto/migration.dto';
import { MigrationService } from './migration.service';

@ApiTags('migration')
@Controller('api/costasset/v1/migrationController/accounts')
@SystemAdminOnly()
export class MigrationController {
  constructor(private readonly migration: MigrationService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Starts ingesting the billing accounts of the legacy service (an `account-migration` job)',
    description:
      'The job reads GET {legacyURL}/api/v1/accounts with `Authorization: Bearer {apiToken}` and ' +
      '`X-User-Name: {userName}`. Each record must be `{ id, name, provider, currency?, status?, parentId? }`; ' +
      'valid ones are upserted into billing accounts, every outcome is kept as a migration record.',
  })
  @ApiOkResponse({ type: StartMigrationResponse })
  @ApiBadRequestResponse({ description: '`MIGRATION_HOST_NOT_ALLOWED`, `MIGRATION_URL_INVALID`, `VALIDATION_FAILED`' })
  start(@CurrentPrincipal() principal: Principal, @Body() body: StartMigrationRequest): Promise<StartMigrationResponse> {
    return this.migration.start(principal, body);
  }

  @Get('status')
  @ApiOperation({
    summary:
      'Records of the latest migration (or `migrationId`) that succeeded and failed ' +
      '(`status` filters), a page of records at a time (`limit`, `cursor`, `nextCursor`)',
  })
  @ApiOkResponse({ type: MigrationStatusResponse })
  @ApiNoContentResponse({ description: 'No migration records' })
  async status(
    @CurrentPrincipal() principal: Principal,
    @Query() query: MigrationStatusQuery,
    @Res({ passthrough: true }) response: Response,
  ): Promise<MigrationStatusResponse | void> {
    const result = await this.migration.status(principal, query);
    if (!result) {
      response.status(204);
      return;
    }
    return result;
  }
}
