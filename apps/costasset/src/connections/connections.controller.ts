import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentPrincipal, Principal, SystemAdminOnly } from '@lib/auth';
import { PageQuery } from '@lib/http';
import { ConnectionsService } from './connections.service';
import {
  ConnectionTestResponse,
  ConnectionListResponse,
  ConnectionResponse,
  ConnectionRunListResponse,
  ConnectionRunResponse,
  CreateConnectionRequest,
  SyncStartedResponse,
  UpdateConnectionRequest,
} from './dto/connection.dto';

const ID = { name: 'id', description: 'The connection id' };

@ApiTags('connections')
@Controller('api/costasset/v1/connections')
export class ConnectionsController {
  constructor(private readonly connections: ConnectionsService) {}

  @Post()
  @SystemAdminOnly()
  @ApiOperation({
    summary: 'Create a data connection to a bucket or container the cloud writes billing exports to (System Admin)',
    description:
      'The connection is tested first (listing, prefix, layout); a failed test is a 400 naming the first problem and saves nothing.',
  })
  @ApiCreatedResponse({ type: ConnectionResponse })
  @ApiBadRequestResponse({ description: '`VALIDATION_FAILED`, `CONNECTION_HOST_NOT_ALLOWED`, `CONNECTION_TEST_FAILED`' })
  @ApiConflictResponse({ description: '`CONNECTION_NAME_TAKEN`, `CONNECTION_LIMIT`' })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateConnectionRequest): Promise<ConnectionResponse> {
    return this.connections.create(principal, body);
  }

  @Post('test')
  @HttpCode(200)
  @SystemAdminOnly()
  @ApiOperation({ summary: 'Test connection settings without saving them: what the listing and the layout find, or the first problem' })
  @ApiOkResponse({ type: ConnectionTestResponse })
  @ApiBadRequestResponse({ description: '`VALIDATION_FAILED`, `CONNECTION_HOST_NOT_ALLOWED`' })
  test(@Body() body: CreateConnectionRequest): Promise<ConnectionTestResponse> {
    return this.connections.test(body);
  }

  @Get()
  @SystemAdminOnly()
  @ApiOperation({ summary: 'The data connections of the tenant, by name, with their last test and last sync' })
  @ApiOkResponse({ type: ConnectionListResponse })
  list(@CurrentPrincipal() principal: Principal): Promise<ConnectionListResponse> {
    return this.connections.list(principal.tenantId);
  }

  @Get(':id')
  @SystemAdminOnly()
  @ApiOperation({ summary: 'One data connection (never its secrets)' })
  @ApiParam(ID)
  @ApiOkResponse({ type: ConnectionResponse })
  @ApiNotFoundResponse({ description: '`CONNECTION_NOT_FOUND`' })
  get(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<ConnectionResponse> {
    return this.connections.get(principal.tenantId, id);
  }

  @Patch(':id')
  @SystemAdminOnly()
  @ApiOperation({ summary: 'Change the given fields; a changed source or credentials is tested again before it is saved' })
  @ApiParam(ID)
  @ApiOkResponse({ type: ConnectionResponse })
  @ApiBadRequestResponse({ description: '`VALIDATION_FAILED`, `CONNECTION_HOST_NOT_ALLOWED`, `CONNECTION_TEST_FAILED`' })
  @ApiNotFoundResponse({ description: '`CONNECTION_NOT_FOUND`' })
  @ApiConflictResponse({ description: '`CONNECTION_NAME_TAKEN`' })
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: UpdateConnectionRequest,
  ): Promise<ConnectionResponse> {
    return this.connections.update(principal.tenantId, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @SystemAdminOnly()
  @ApiOperation({ summary: 'Delete a connection and its run history; the uploads its syncs made stay' })
  @ApiParam(ID)
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiNotFoundResponse({ description: '`CONNECTION_NOT_FOUND`' })
  @ApiConflictResponse({ description: '`CONNECTION_SYNC_RUNNING`' })
  remove(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<void> {
    return this.connections.remove(principal.tenantId, id);
  }

  @Post(':id/test')
  @HttpCode(200)
  @SystemAdminOnly()
  @ApiOperation({ summary: 'Test the stored settings again (the result is kept as `lastCheck`)' })
  @ApiParam(ID)
  @ApiOkResponse({ type: ConnectionTestResponse })
  @ApiNotFoundResponse({ description: '`CONNECTION_NOT_FOUND`' })
  retest(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<ConnectionTestResponse> {
    return this.connections.retest(principal.tenantId, id);
  }

  @Post(':id/sync')
  @HttpCode(202)
  @SystemAdminOnly()
  @ApiOperation({
    summary: 'Sync now: a job that imports each new or changed delivery as one FOCUS upload',
    description: 'When a sync of the connection is queued or running, answers that one (`alreadyRunning: true`).',
  })
  @ApiParam(ID)
  @ApiAcceptedResponse({ type: SyncStartedResponse })
  @ApiNotFoundResponse({ description: '`CONNECTION_NOT_FOUND`' })
  sync(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<SyncStartedResponse> {
    return this.connections.requestSync(principal.tenantId, id, 'manual', principal);
  }

  @Get(':id/runs')
  @SystemAdminOnly()
  @ApiOperation({ summary: 'The sync history of a connection, newest first, in pages (cursor)' })
  @ApiParam(ID)
  @ApiOkResponse({ type: ConnectionRunListResponse })
  @ApiNotFoundResponse({ description: '`CONNECTION_NOT_FOUND`' })
  runs(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Query() query: PageQuery): Promise<ConnectionRunListResponse> {
    return this.connections.runPage(principal.tenantId, id, query);
  }

  @Get(':id/runs/:runId')
  @SystemAdminOnly()
  @ApiOperation({ summary: 'One sync: its progress, the uploads it made (with their status now) and every file with its outcome and why' })
  @ApiParam(ID)
  @ApiParam({ name: 'runId', description: 'The run id (the sync job id)' })
  @ApiOkResponse({ type: ConnectionRunResponse })
  @ApiNotFoundResponse({ description: '`CONNECTION_RUN_NOT_FOUND`' })
  run(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Param('runId') runId: string): Promise<ConnectionRunResponse> {
    return this.connections.run(principal.tenantId, id, runId);
  }
}
