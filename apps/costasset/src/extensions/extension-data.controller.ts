import { Body, Controller, Get, HttpCode, Post, Query, StreamableFile } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { AnyMember, CurrentPrincipal, Principal, SystemAdminOnly } from '@lib/auth';
import { DataDeleted, DeleteDataRequest, DownloadQuery, StoredFile } from './dto/extension-data.dto';
import { ExtensionDataService } from './extension-data.service';

const KEYS =
  'Keys are relative to the tenant prefix; a key outside it (absolute, ' +
  '`..`, another tenant) answers 404 OBJECT_NOT_FOUND, as a missing one does.';

@ApiTags('extensions')
@Controller('api/costasset/extensions/data')
export class ExtensionDataController {
  constructor(private readonly data: ExtensionDataService) {}

  @Get('list')
  @AnyMember()
  @ApiOperation({
    summary: "Lists the tenant's files: extensions, raw uploads, expanded raw data, GPD and FOCUS upload files",
    description: `${KEYS} A System Admin sees every file; anyone else the files of the uploads it may see (see GET /v1/focus/uploads).`,
  })
  @ApiOkResponse({ type: [StoredFile] })
  list(@CurrentPrincipal() principal: Principal): Promise<StoredFile[]> {
    return this.data.list(principal);
  }

  @Post('delete')
  @HttpCode(200)
  @SystemAdminOnly()
  @ApiOperation({
    summary: 'Deletes 1 to 1000 listed files (System Admin)',
    description: `${KEYS} One refused key refuses the request; a listed file already gone is not counted.`,
  })
  @ApiOkResponse({ type: DataDeleted })
  @ApiNotFoundResponse({ description: 'OBJECT_NOT_FOUND' })
  delete(@CurrentPrincipal() principal: Principal, @Body() body: DeleteDataRequest): Promise<DataDeleted> {
    return this.data.delete(principal.tenantId, body.items);
  }

  @Get('download')
  @AnyMember()
  @ApiOperation({
    summary: 'Streams one file',
    description: `${KEYS} A file of an upload the caller may not see answers 404 OBJECT_NOT_FOUND too.`,
  })
  @ApiProduces('application/octet-stream')
  @ApiOkResponse({ schema: { type: 'string', format: 'binary' } })
  @ApiNotFoundResponse({ description: 'OBJECT_NOT_FOUND' })
  async download(@CurrentPrincipal() principal: Principal, @Query() query: DownloadQuery): Promise<StreamableFile> {
    const file = await this.data.download(principal, query.key);
    return new StreamableFile(file.stream, {
      type: 'application/octet-stream',
      length: file.size,
      disposition: `attachment; filename="${file.fileName.replace(/["\\\r\n]/g, '_')}"`,
    });
  }
}
