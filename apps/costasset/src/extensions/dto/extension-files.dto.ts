import { ApiProperty } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';
import { RequiredNested } from '@lib/http';
import { DeclaredSizeQuery } from '../../object-store/declared-size';

export const FILE_NAME = /^[A-Za-z0-9._-]{1,200}\.zip$/;
export const PROVIDER_CODE = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export class ProviderCodeField {
  /**
   * Lower-case provider code: `^[a-z0-9][a-z0-9_-]{0,63}$`
   * @example "acme"
   */
  @IsString()
  @Matches(PROVIDER_CODE, { message: 'ProviderCode must match ^[a-z0-9][a-z0-9_-]{0,63}$' })
  ProviderCode: string;
}

export class ExtensionFileQuery extends ProviderCodeField {
  /**
   * Name of the zip: `^[A-Za-z0-9._-]{1,200}\.zip$`
   * @example "acme-extension.zip"
   */
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
  /** Pre-signed PUT URL; PUT the zip bytes to it (exactly `sizeBytes` of them when declared), nothing else to add */
  preSignedUrl: string;
  /**
   * Key of the object, relative to the tenant prefix (as in /data/list)
   * @example "extensions/acme/acme-extension.zip"
   */
  key: string;
  /** When the URL expires (GPD_UPLOAD_URL_TTL_SECONDS); a PUT must start before */
  @ApiProperty({ format: 'date-time' })
  expiresAt: string;
}

export class ValidationProblem {
  /** Where in extension.json (`mapping.BilledCost`), or `extension.json`; absent for the archive itself */
  path?: string;
  message: string;
}

export class ExtensionValidation {
  valid: boolean;
  errors: ValidationProblem[];
}

export class ExpandedRawData {
  /**
   *
   * @example "ok"
   */
  @ApiProperty({ type: String }) results: 'ok';
  /** Keys of the expanded files, relative to the tenant prefix */
  @ApiProperty({ type: [String], example: ['raw/acme/expanded/acme-raw.zip/usage-202410.csv'] })
  files: string[];
}

export class FlowVars {
  /**
   *
   * @example "acme"
   */
  @IsString()
  @Matches(PROVIDER_CODE, { message: 'providerCode must match ^[a-z0-9][a-z0-9_-]{0,63}$' })
  providerCode: string;

  /**
   * The raw upload to transform (the `Filename` given to notify); the one expanded most recently when absent
   * @example "acme-raw-202410.zip"
   */
  @IsOptional()
  @IsString()
  @Matches(FILE_NAME, { message: 'rawFile must match ^[A-Za-z0-9._-]{1,200}\\.zip$' })
  rawFile?: string;
}

export class FlowRequest {
  @RequiredNested(() => FlowVars)
  vars: FlowVars;
}

export class FlowStarted {
  /**
   *
   * @example "started"
   */
  @ApiProperty({ type: String }) status: 'started';
  message: string;
  /** Job of type `extension-flow`, readable at /api/costasset/v1/jobs/{jobId}; also the GPDUploadRefId of the file it generates */
  @ApiProperty({ format: 'uuid' })
  jobId: string;
}
