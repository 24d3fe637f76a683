import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiProperty,
  ApiTags,
} from '@nestjs/swagger';
import { AnyMember, CostDataManager, CurrentPrincipal, Principal, SystemAdminOnly } from '@lib/auth';
import {
  ExpandedRawData,
  ExtensionFileQuery,
  ExtensionUploadQuery,
  ExtensionValidation,
  FlowRequest,
  FlowStarted,
  PresignedUpload,
  RawDataUploadQuery,
} from './dto/extension-files.dto';
import { ExtensionRepoService } from './extension-repo.service';
import { ExtensionFlowService } from '../imports/extension-flow/extension-flow.service';
import { RawDataService } from './raw-data.service';
import { EXTENSION_FORMAT_DOC } from '../format-docs';

export class ConnectionCheckResponse {
  @ApiProperty({ description: 'The profile (user) id of the caller' })
  profileId: string;

  @ApiProperty()
  tenantId: string;
}

@ApiTags('extensions')
@Controller('api/costasset/extensions')
export class ExtensionsController {
  constructor(
    private readonly extensions: ExtensionRepoService,
    private readonly raw: RawDataService,
    private readonly flows: ExtensionFlowService,
  ) {}

  @Get('test')
  @AnyMember()
  @ApiOperation({ summary: 'Checks the tenant connection; lists the profile id of the user' })
  @ApiOkResponse({ type: ConnectionCheckResponse })
  test(@CurrentPrincipal() principal: Principal): ConnectionCheckResponse {
    return { profileId: principal.userId, tenantId: principal.tenantId };
  }

  @Post('ObjectStoreExtensionRepo')
  @HttpCode(200)
  @SystemAdminOnly()
  @ApiOperation({
    summary: 'Pre-signed PUT URL for an extension zip (System Admin)',
    description:
      'The object goes to `extensions/<ProviderCode>/<Filename>` under the tenant prefix. With `sizeBytes`, the URL accepts a ' +
      `body of exactly that length only, and validation (and a flow) refuses a stored zip of another size. ${EXTENSION_FORMAT_DOC}`,
  })
  @ApiOkResponse({ type: PresignedUpload })
  @ApiPayloadTooLargeResponse({ description: 'EXTENSION_TOO_LARGE: `sizeBytes` is over EXTENSION_MAX_BYTES' })
  presignExtension(@CurrentPrincipal() principal: Principal, @Query() query: ExtensionUploadQuery): Promise<PresignedUpload> {
    return this.extensions.presign(principal.tenantId, query.ProviderCode, query.Filename, query.sizeBytes);
  }

  @Post('ObjectStoreExtensionRepo/validate')
  @HttpCode(200)
  @SystemAdminOnly()
  @ApiOperation({
    summary: 'Validates an uploaded extension zip (System Admin)',
    description:
      'Checks that the zip holds `extension.json` at its root: `providerCode` (equal to ProviderCode), `version`, ' +
      '`input: { filePattern, csv: { delimiter, quote, header: true, encoding } }`, `mapping: { <GPD cost column>: ' +
      '<JSONata expression over one raw row> }` covering every required column and no unknown one, optional `metadata: ' +
      '{ providerName, currency }`. Expressions are compiled, never evaluated. An invalid manifest is a 200 with `valid: false`. ' +
      EXTENSION_FORMAT_DOC,
  })
  @ApiOkResponse({ type: ExtensionValidation })
  @ApiBadRequestResponse({ description: 'EXTENSION_SIZE_MISMATCH: the stored zip is not the `sizeBytes` declared for its upload URL' })
  @ApiNotFoundResponse({ description: 'EXTENSION_NOT_FOUND' })
  validateExtension(@CurrentPrincipal() principal: Principal, @Query() query: ExtensionFileQuery): Promise<ExtensionValidation> {
    return this.extensions.validate(principal.tenantId, query.ProviderCode, query.Filename);
  }

  @Post('ObjectStoreInputHandler')
  @HttpCode(200)
  @CostDataManager()
  @ApiOperation({
    summary: 'Pre-signed PUT URL for a raw-data zip (Cost Data Manager)',
    description:
      'The object goes to `raw/<ProviderCode>/uploads/<Filename>` under the tenant prefix. With `sizeBytes`, ' +
      `the URL accepts a body of exactly that length only, and notify refuses a stored zip of another size. ${EXTENSION_FORMAT_DOC}`,
  })
  @ApiOkResponse({ type: PresignedUpload })
  @ApiPayloadTooLargeResponse({ description: 'ARCHIVE_TOO_LARGE: `sizeBytes` is over RAW_MAX_EXPANDED_BYTES' })
  presignRawData(@CurrentPrincipal() principal: Principal, @Query() query: RawDataUploadQuery): Promise<PresignedUpload> {
    return this.raw.presign(principal.tenantId, query.ProviderCode, query.Filename, query.sizeBytes);
  }

  @Post('notify/ObjectStoreInputHandler')
  @HttpCode(200)
  @CostDataManager()
  @ApiOperation({
    summary: 'Expands an uploaded raw-data zip inside the object store (Cost Data Manager)',
    description:
      'Entries go to `raw/<ProviderCode>/expanded/<Filename>/<entry path>` (one folder per raw upload; ' +
      'expanding the same Filename again replaces it). Refused before the zip is opened: a zip larger than ' +
      'RAW_MAX_EXPANDED_BYTES, or not the `sizeBytes` declared for its upload URL. Refused with nothing left written: ' +
      'unsafe paths, more than RAW_MAX_ENTRIES entries, more than RAW_MAX_EXPANDED_BYTES expanded.',
  })
  @ApiOkResponse({ type: ExpandedRawData })
  @ApiBadRequestResponse({ description: 'ARCHIVE_PATH_REFUSED (absolute or `..` entry), ARCHIVE_INVALID, RAW_DATA_SIZE_MISMATCH' })
  @ApiNotFoundResponse({ description: 'RAW_DATA_NOT_FOUND' })
  @ApiPayloadTooLargeResponse({ description: 'ARCHIVE_TOO_LARGE' })
  expandRawData(@CurrentPrincipal() principal: Principal, @Query() query: ExtensionFileQuery): Promise<ExpandedRawData> {
    return this.raw.expand(principal.tenantId, query.ProviderCode, query.Filename);
  }

  @Post('flow')
  @HttpCode(200)
  @CostDataManager()
  @ApiOperation({
    summary: 'Transforms the expanded raw data of a provider into a GPD file (Cost Data Manager)',
    description:
      'Starts an `extension-flow` job with the most recently uploaded extension of the provider, ' +
      'over the expanded files of ONE raw upload: `vars.rawFile` (its notify `Filename`), or else the raw upload ' +
      'expanded most recently. The job checks every mapped row with the same rules as enrichment (rejections name ' +
      'the raw file and line), writes `gpd/<jobId>/<providerCode>-extension.zip` and registers it as a GPD upload ' +
      '(GPDUploadRefId = jobId, state `uploaded`) of the manifest provider name, ready for POST /v1/gpd/enrich. ' +
      'Once enriched, it replaces the rows of earlier flows of the same raw upload (they become `superseded`). ' +
      EXTENSION_FORMAT_DOC,
  })
  @ApiOkResponse({ type: FlowStarted })
  @ApiBadRequestResponse({ description: 'EXTENSION_INVALID, EXTENSION_SIZE_MISMATCH' })
  @ApiNotFoundResponse({ description: 'EXTENSION_NOT_FOUND, RAW_DATA_NOT_FOUND' })
  startFlow(@CurrentPrincipal() principal: Principal, @Body() body: FlowRequest): Promise<FlowStarted> {
    return this.flows.start(principal.tenantId, body.vars.providerCode, { rawFile: body.vars.rawFile }, principal);
  }
}
