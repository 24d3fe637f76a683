import { Controller, Get, Query, StreamableFile } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { AnyMember, CurrentPrincipal, Principal } from '@lib/auth';
import { ExportFocusQuery } from './focus-export.dto';
import { FocusExportService } from './focus-export.service';

@ApiTags('focus')
@Controller('api/costasset/v1/costLineItems/export')
export class FocusExportController {
  constructor(private readonly exports: FocusExportService) {}

  @Get()
  @AnyMember()
  @ApiOperation({
    summary: 'Cost line items as a FOCUS 1.2 file (CSV or Parquet), streamed',
    description:
      'Same filters, `expr` and visibility as GET costLineItems. Every FOCUS 1.2 column plus the `x_` ' +
      'columns the rows carry; amounts as stored (never rounded), datetimes in UTC. Importing the ' +
      'file (POST /focus/uploads) gives the same line items back. `Content-Disposition` names the file.',
  })
  @ApiProduces('text/csv', 'application/vnd.apache.parquet')
  @ApiOkResponse({ schema: { type: 'string', format: 'binary' } })
  async export(@CurrentPrincipal() principal: Principal, @Query() query: ExportFocusQuery): Promise<StreamableFile> {
    const file = await this.exports.export(principal, query);
    return new StreamableFile(file.stream, { type: file.contentType, disposition: `attachment; filename="${file.fileName}"` });
  }
}
