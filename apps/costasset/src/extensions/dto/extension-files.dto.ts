import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';
import { RequiredNested } from '@lib/http';
import { DeclaredSizeQuery } from '../../object-store/declared-size';

export const FILE_NAME = /^[A-Za-z0-9._-]{1,200}\.zip$/;
export const PROVIDER_CODE = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export class ProviderCodeField {
  @ApiProperty({ type: String, description: 'Lower-case provider code: `^[a-z0-9][a-z0-9_-]{0,63}$`', example: 'acme' })
  @IsString()
  @Matches(PROVIDER_CODE, { message: 'ProviderCode must match ^[a-z0-9][a-z0-9_-]{0,63}$' })
  ProviderCode: string;
}

export class ExtensionFileQuery extends ProviderCodeField {
  @ApiProperty({ type: String, description: 'Name of the zip: `^[A-Za-z0-9._-]{1,200}\\.zip$`', example: 'acme-extension.zip' })
  @IsString()
  @Matches(FILE_NAME, { message: 'Filename must match ^[A-Za-z0-9._-]{1,200}\\.zip$' })
  Filename: string;
}

export class ExtensionUploadQuery extends ExtensionFileQuery {
  @DeclaredSizeQuery('EXTENSION_MAX_BYTES', 'EXTENSION_TOO_LARGE', 'EXTENSION_SIZE_MISMATCH')
  sizeBytes?: number;
}

export class RawDataUploadQuery extends ExtensionFileQuery {
  @DeclaredSizeQuery('RAW_MAX_EXPANDED_BYTES', 'ARCHIVE_TOO_LARGE', 'RAW_DATA_SIZE_MISMATCH')
  sizeBytes?: number;
}

export class PresignedUpload {
  @ApiProperty({
    type: String,
    description: 'Pre-signed PUT URL; PUT the zip bytes to it (exactly `sizeBytes` of them when declared), nothing else to add',
  })
  preSignedUrl: string;
  @ApiProperty({
    type: String,
    description: 'Key of the object, relative to the tenant prefix (as in /data/list)',
    example: 'extensions/acme/acme-extension.zip',
  })
  key: string;
  @ApiProperty({
    type: String,
    format: 'date-time',
    description: 'When the URL expires (GPD_UPLOAD_URL_TTL_SECONDS); a PUT must start before',
  })
  expiresAt: string;
}

export class ValidationProblem {
  @ApiPropertyOptional({
    type: String,
    description: 'Where in extension.json (`mapping.BilledCost`), or `extension.json`; absent for the archive itself',
  })
  path?: string;
  @ApiProperty({ type: String }) message: string;
}

export class ExtensionValidation {
  @ApiProperty({ type: Boolean }) valid: boolean;
  @ApiProperty({ type: [ValidationProblem] }) errors: ValidationProblem[];
}

export class ExpandedRawData {
  @ApiProperty({ type: String, example: 'ok' }) results: 'ok';
  @ApiProperty({
    type: [String],
    description: 'Keys of the expanded files, relative to the tenant prefix',
    example: ['raw/acme/expanded/acme-raw.zip/usage-202410.csv'],
  })
  files: string[];
}

export class FlowVars {
  @ApiProperty({ type: String, example: 'acme' })
  @IsString()
  @Matches(PROVIDER_CODE, { message: 'providerCode must match ^[a-z0-9][a-z0-9_-]{0,63}$' })
  providerCode: string;

  @ApiPropertyOptional({
    type: String,
    description: 'The raw upload to transform (the `Filename` given to notify); the one expanded most recently when absent',
    example: 'acme-raw-202410.zip',
  })
  @IsOptional()
  @IsString()
  @Matches(FILE_NAME, { message: 'rawFile must match ^[A-Za-z0-9._-]{1,200}\\.zip$' })
  rawFile?: string;
}

export class FlowRequest {
  @ApiProperty({ type: FlowVars })
  @RequiredNested(() => FlowVars)
  vars: FlowVars;
}

export class FlowStarted {
  @ApiProperty({ type: String, example: 'started' }) status: 'started';
  @ApiProperty({ type: String }) message: string;
  @ApiProperty({
    type: String,
    format: 'uuid',
    description:
      'Job of type `extension-flow`, readable at /api/costasset/v1/jobs/{jobId}; also the GPDUploadRefId of the file it generates',
  })
  jobId: string;
}
