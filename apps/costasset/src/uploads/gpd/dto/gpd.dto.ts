import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsOptional, IsUUID, Matches } from 'class-validator';
import { IsSafeText, PageQuery } from '@lib/http';
import { DeclaredSizeQuery } from '../../../object-store/declared-size';
import { FOCUS_FILE_FORMATS, UPLOAD_STATUSES, UPLOAD_FORMATS } from '../../schemas/upload.schema';
import type { FocusFileFormat, UploadStatus, UploadFormat } from '../../schemas/upload.schema';

export class ProviderQuery {
  /**
   *
   * @example "aws"
   */
  @IsSafeText(100)
  providername: string;
}

/** A page of a provider's uploads, newest first. */
export class ListUploadsQuery extends PageQuery {
  /**
   *
   * @example "aws"
   */
  @IsSafeText(100)
  providername: string;
}

export class SubmitUploadQuery extends ProviderQuery {
  /**
   * Name of the zip; `upload.zip` when absent
   * @example "aws-202410.zip"
   */
  @IsOptional()
  @Matches(/^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/, { message: 'fileName may hold letters, digits, dot, dash and underscore' })
  fileName?: string;

  @DeclaredSizeQuery('GPD_MAX_FILE_BYTES', 'GPD_FILE_TOO_LARGE', 'GPD_FILE_SIZE_MISMATCH')
  sizeBytes?: number;
}

export class UploadSubmitted {
  @ApiProperty({ format: 'uuid' }) GPDUploadRefId: string;
  /** Pre-signed PUT URL into the object store; PUT the file bytes to it (exactly `sizeBytes` of them when declared) */
  uploadUrl: string;
  /** When the URL expires (GPD_UPLOAD_URL_TTL_SECONDS); a PUT must start before */
  @ApiProperty({ format: 'date-time' })
  expiresAt: string;
}

export class RejectedRowDto {
  /** File in the archive or upload; for a GPD file made by an extension flow, the raw file */
  file: string;
  /** CSV line (1 is the header) or Parquet row (1-based); 0 for a problem of the file itself */
  line: number;
  /** Every problem of the row, joined with `; ` */
  reason: string;
  /** The row's FOCUS `Id`, when the file has one */
  id?: string;
}

export class RuleExampleDto {
  file: string;
  line: number;
  id?: string;
  message: string;
}

export class RuleCountDto {
  /** Stable rule code, e.g. `DECIMAL_INVALID`, `VALUE_NOT_ALLOWED`, `MANDATORY_COLUMN_MISSING` */
  rule: string;
  /** `error` rejects the row; `warning` is reported and the row is written */
  @ApiProperty({ enum: ['error', 'warning'] })
  severity: 'error' | 'warning';
  /** How often the rule failed (rows, or files for file rules) */
  count: number;
  /** The first 5 occurrences */
  examples: RuleExampleDto[];
}

export class ConformanceDto {
  /** Every rule that failed, most frequent first */
  rules: RuleCountDto[];
}

export class UploadPartDto {
  name: string;
  @ApiProperty({ enum: FOCUS_FILE_FORMATS }) format: FocusFileFormat;
  /** The size found in the store when the import was asked for */
  sizeBytes?: number;
  /** The size declared when the upload was created */
  declaredBytes?: number;
  /**
   *
   * @example "1.2"
   */
  focusVersion?: string;
  @ApiPropertyOptional({ enum: ['declared', 'metadata', 'columns'] }) versionSource?: string;
  rowsRead: number;
  rowsWritten: number;
  rowsRejected: number;
}

export class ImportScopeDto {
  providerName: string;
  billingAccountId: string;
  /**
   *
   * @example "202410"
   */
  billingPeriod: string;
  rows: number;
}

export class ReplacementDto {
  @ApiProperty({ format: 'uuid' }) uploadRefId: string;
  rowsRemoved: number;
}

export class UploadRecordDto {
  @ApiProperty({ format: 'uuid' }) GPDUploadRefId: string;
  @ApiProperty({ enum: UPLOAD_FORMATS }) format: UploadFormat;
  /** GPD: the provider of the file; FOCUS: the label given at creation */
  providerName?: string;
  fileName: string;
  /** The size declared when the upload was submitted (`sizeBytes`) */
  declaredBytes?: number;
  /**
   * GPD: `awaiting_upload`, `uploaded`, `enriching`, then `enriched`, `enriched_with_errors` or `failed`.
   * FOCUS: `awaiting_upload` (`uploaded` when sent through POST /v1/gpd), `importing`, then `imported`, `imported_with_errors`
   * or `failed`, and `superseded` once newer imports replaced all its rows. Both end `cleaned`.
   */
  @ApiProperty({ enum: UPLOAD_STATUSES })
  status: UploadStatus;
  @ApiPropertyOptional({ format: 'uuid' }) jobId?: string;
  rowsRead: number;
  rowsWritten: number;
  rowsRejected: number;
  /** The first 100 rejected rows, or the structural errors of a failed file */
  errors: RejectedRowDto[];
  /** Counts per rule beyond the first rejected rows (conformance report) */
  conformance?: ConformanceDto;
  /** FOCUS: the files of the upload */
  parts?: UploadPartDto[];
  /** FOCUS: the providers found (ProviderName / ServiceProviderName) */
  providers?: string[];
  /** FOCUS: rows per (provider, billing account, billing period) */
  scopes?: ImportScopeDto[];
  /** Rows of older uploads this one replaced */
  replaced?: ReplacementDto[];
  /** The uploads that replaced this one */
  supersededBy?: string[];
  createdAt: Date;
  updatedAt: Date;
}

export class EnrichRequest {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @IsUUID('all', { each: true })
  GPDUploadRefId: string[];

  /** Providers the uploads must belong to (case-insensitive); empty = any */
  @IsArray()
  @ArrayMaxSize(100)
  @IsSafeText(100, { each: true })
  provider: string[];

  /** `true` re-enriches uploads already enriched or failed (their rows are replaced) */
  @ApiProperty({ enum: ['true', 'false'] })
  @IsIn(['true', 'false'])
  retry: 'true' | 'false';
}

export class EnrichJob {
  @ApiProperty({ format: 'uuid' }) GPDUploadRefId: string;
  @ApiProperty({ format: 'uuid' }) jobId: string;
}

export class EnrichStarted {
  /**
   *
   * @example "started"
   */
  @ApiProperty({ type: String }) status: 'started';
  jobs: EnrichJob[];
}

export class RetryRequest {
  @ApiProperty({ format: 'uuid' })
  @IsSafeText(64)
  jobId: string;
}

export class RetryAccepted {
  /**
   *
   * @example "accepted"
   */
  @ApiProperty({ type: String }) status: 'accepted';
  @ApiProperty({ format: 'uuid' }) jobId: string;
}

export class CleanupRequest {
  @ApiProperty({ format: 'uuid' })
  @IsSafeText(64)
  GPDUploadRefId: string;
}

export class CleanupDone {
  /**
   *
   * @example "cleaned"
   */
  @ApiProperty({ type: String }) status: 'cleaned';
  GPDUploadRefId: string;
  costLineItemsRemoved: number;
  assetsRemoved: number;
  utilizationRemoved: number;
}
