import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiProperty,
  ApiTags,
} from '@nestjs/swagger';
import { AnyMember, CostDataManager, CurrentPrincipal, Principal } from '@lib/auth';
import { PageOf } from '@lib/http';
import { UploadRecordDto } from '../gpd/dto/gpd.dto';
import {
  CreateFocusUploadRequest,
  FocusImportStarted,
  FocusUploadCreated,
  ImportFocusRequest,
  ListFocusUploadsQuery,
} from './dto/focus-upload.dto';
import { FocusUploadsService } from './focus-uploads.service';

export class FocusUploadPage extends PageOf(UploadRecordDto) {}

export class FocusUploadCleaned {
  @ApiProperty({ type: String, example: 'cleaned' }) status: 'cleaned';
  @ApiProperty({ type: String, format: 'uuid' }) uploadId: string;
  @ApiProperty({ type: Number }) costLineItemsRemoved: number;
}

@ApiTags('focus')
@Controller('api/costasset/v1/focus/uploads')
export class FocusUploadsController {
  constructor(private readonly focus: FocusUploadsService) {}

  @Post()
  @CostDataManager()
  @ApiOperation({
    summary: 'Creates a FOCUS upload: names every file of the export, answers one pre-signed PUT URL per file',
    description:
      'No manifest or extension to write: FOCUS 1.0–1.3 as CSV, CSV.gz or Parquet (Snappy, ZSTD). PUT each file to its URL, then ' +
      'POST .../{uploadId}/import: the import checks that every named file arrived and runs one `focus.import` job over all of them.',
  })
  @ApiCreatedResponse({ type: FocusUploadCreated })
  @ApiBadRequestResponse({ description: 'VALIDATION_FAILED, FOCUS_FILE_FORMAT_UNKNOWN, FOCUS_FILE_NAME_REPEATED, FOCUS_TOO_MANY_FILES' })
  @ApiPayloadTooLargeResponse({ description: 'FOCUS_FILE_TOO_LARGE: a declared `sizeBytes` is over FOCUS_MAX_FILE_BYTES' })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateFocusUploadRequest): Promise<FocusUploadCreated> {
    return this.focus.create(principal, body);
  }

  @Get()
  @AnyMember()
  @ApiOperation({ summary: 'FOCUS uploads of the tenant, newest first, with status, counts and conformance report' })
  @ApiOkResponse({ type: FocusUploadPage })
  list(@CurrentPrincipal() principal: Principal, @Query() query: ListFocusUploadsQuery): Promise<FocusUploadPage> {
    return this.focus.list(principal, query.limit, query.cursor);
  }

  @Get(':uploadId')
  @AnyMember()
  @ApiOperation({
    summary: 'One FOCUS upload: files, versions found, rows read/written/rejected, rejected rows, conformance report, replaced uploads',
  })
  @ApiOkResponse({ type: UploadRecordDto })
  @ApiNotFoundResponse({ description: 'FOCUS_UPLOAD_NOT_FOUND' })
  get(@CurrentPrincipal() principal: Principal, @Param('uploadId') uploadId: string): Promise<UploadRecordDto> {
    return this.focus.get(principal, uploadId);
  }

  @Post(':uploadId/import')
  @CostDataManager()
  @HttpCode(202)
  @ApiOperation({
    summary: 'Imports the files of the upload as one job',
    description:
      'Refused until every file named at creation is in the store. The job reads each file streaming, detects its FOCUS ' +
      'version (declared, file metadata, or columns), validates every row, writes line items split by ProviderName ' +
      '(ServiceProviderName from 1.3), and then replaces the rows older imports hold for the same (provider, billing account, ' +
      'billing period). It ends `succeeded`, `completed_with_errors` (rows rejected beyond INGEST_REJECTED_ROWS_THRESHOLD_PERCENT) ' +
      'or `failed` (no row written, or a file unreadable or without a required column: nothing kept); the upload is `importing`, ' +
      'then `imported`, `imported_with_errors` or `failed`.',
  })
  @ApiAcceptedResponse({ type: FocusImportStarted })
  @ApiBadRequestResponse({
    description:
      'FOCUS_FILES_NOT_READY (errors list the files not uploaded yet), ' +
      'FOCUS_FILE_SIZE_MISMATCH (a stored file is not its declared `sizeBytes`)',
  })
  @ApiNotFoundResponse({ description: 'FOCUS_UPLOAD_NOT_FOUND' })
  @ApiConflictResponse({ description: 'FOCUS_ALREADY_IMPORTED' })
  @ApiPayloadTooLargeResponse({ description: 'FOCUS_FILE_TOO_LARGE' })
  import(
    @CurrentPrincipal() principal: Principal,
    @Param('uploadId') uploadId: string,
    @Body() body: ImportFocusRequest,
  ): Promise<FocusImportStarted> {
    return this.focus.import(principal, uploadId, body?.again === true);
  }

  @Delete(':uploadId')
  @CostDataManager()
  @HttpCode(200)
  @ApiOperation({ summary: 'Removes the files of the upload and every line item imported from it (the record stays, `cleaned`)' })
  @ApiOkResponse({ type: FocusUploadCleaned })
  @ApiNotFoundResponse({ description: 'FOCUS_UPLOAD_NOT_FOUND' })
  cleanup(@CurrentPrincipal() principal: Principal, @Param('uploadId') uploadId: string): Promise<FocusUploadCleaned> {
    return this.focus.cleanup(principal, uploadId);
  }
}
