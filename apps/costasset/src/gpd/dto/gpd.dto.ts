import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsOptional, IsUUID, Matches } from 'class-validator';
import { IsSafeText, PageQuery } from '@lib/http';
import { DeclaredSizeQuery } from '../../object-store/declared-size';
import { FOCUS_FILE_FORMATS, GPD_STATUSES, UPLOAD_FORMATS } from '../schemas/gpd-upload.schema';
import type { FocusFileFormat, GpdStatus, UploadFormat } from '../schemas/gpd-upload.schema';

export class ProviderQuery {
  @ApiProperty({ type: String, example: 'aws' })
  @IsSafeText(100)
  providername: string;
}

/** A page of a provider's uploads, newest first. */
export class ListUploadsQuery extends PageQuery {
  @ApiProperty({ type: String, example: 'aws' })
  @IsSafeText(100)
  providername: string;
}

export class SubmitUploadQuery extends ProviderQuery {
  @ApiPropertyOptional({ type: String, description: 'Name of the zip; `upload.zip` when absent', example: 'aws-202410.zip' })
  @IsOptional()
  @Matches(/^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/, { message: 'fileName may hold letters, digits, dot, dash and underscore' })
  fileName?: string;

  @DeclaredSizeQuery('GPD_MAX_FILE_BYTES', 'GPD_FILE_TOO_LARGE', 'GPD_FILE_SIZE_MISMATCH')
  sizeBytes?: number;
}

export class UploadSubmitted {
  @ApiProperty({ type: String, format: 'uuid' }) GPDUploadRefId: string;
  @ApiProperty({
    type: String,
    description: 'Pre-signed PUT URL into the object store; PUT the file bytes to it (exactly `sizeBytes` of them when declared)',
  })
  uploadUrl: string;
  @ApiProperty({
    type: String,
    format: 'date-time',
    description: 'When the URL expires (GPD_UPLOAD_URL_TTL_SECONDS); a PUT must start before',
  })
  expiresAt: string;
}

export class RejectedRowDto {
  @ApiProperty({ type: String, description: 'File in the archive or upload; for a GPD file made by an extension flow, the raw file' })
  file: string;
  @ApiProperty({ type: Number, description: 'CSV line (1 is the header) or Parquet row (1-based); 0 for a problem of the file itself' })
  line: number;
  @ApiProperty({ type: String, description: 'Every problem of the row, joined with `; `' }) reason: string;
  @ApiPropertyOptional({ type: String, description: "The row's FOCUS `Id`, when the file has one" }) id?: string;
}

export class RuleExampleDto {
  @ApiProperty({ type: String }) file: string;
  @ApiProperty({ type: Number }) line: number;
  @ApiPropertyOptional({ type: String }) id?: string;
  @ApiProperty({ type: String }) message: string;
}

export class RuleCountDto {
  @ApiProperty({ type: String, description: 'Stable rule code, e.g. `DECIMAL_INVALID`, `VALUE_NOT_ALLOWED`, `MANDATORY_COLUMN_MISSING`' })
  rule: string;
  @ApiProperty({
    type: String,
    enum: ['error', 'warning'],
    description: '`error` rejects the row; `warning` is reported and the row is written',
  })
  severity: 'error' | 'warning';
  @ApiProperty({ type: Number, description: 'How often the rule failed (rows, or files for file rules)' }) count: number;
  @ApiProperty({ type: [RuleExampleDto], description: 'The first 5 occurrences' }) examples: RuleExampleDto[];
}

export class ConformanceDto {
  @ApiProperty({ type: [RuleCountDto], description: 'Every rule that failed, most frequent first' }) rules: RuleCountDto[];
}

export class UploadPartDto {
  @ApiProperty({ type: String }) name: string;
  @ApiProperty({ type: String, enum: FOCUS_FILE_FORMATS }) format: FocusFileFormat;
  @ApiPropertyOptional({ type: Number, description: 'The size found in the store when the import was asked for' }) sizeBytes?: number;
  @ApiPropertyOptional({ type: Number, description: 'The size declared when the upload was created' }) declaredBytes?: number;
  @ApiPropertyOptional({ type: String, example: '1.2' }) focusVersion?: string;
  @ApiPropertyOptional({ type: String, enum: ['declared', 'metadata', 'columns'] }) versionSource?: string;
  @ApiProperty({ type: Number }) rowsRead: number;
  @ApiProperty({ type: Number }) rowsWritten: number;
  @ApiProperty({ type: Number }) rowsRejected: number;
}

export class ImportScopeDto {
  @ApiProperty({ type: String }) providerName: string;
  @ApiProperty({ type: String }) billingAccountId: string;
  @ApiProperty({ type: String, example: '202410' }) billingPeriod: string;
  @ApiProperty({ type: Number }) rows: number;
}

export class ReplacementDto {
  @ApiProperty({ type: String, format: 'uuid' }) uploadRefId: string;
  @ApiProperty({ type: Number }) rowsRemoved: number;
}

export class UploadRecordDto {
  @ApiProperty({ type: String, format: 'uuid' }) GPDUploadRefId: string;
  @ApiProperty({ type: String, enum: UPLOAD_FORMATS }) format: UploadFormat;
  @ApiPropertyOptional({ type: String, description: 'GPD: the provider of the file; FOCUS: the label given at creation' })
  providerName?: string;
  @ApiProperty({ type: String }) fileName: string;
  @ApiPropertyOptional({ type: Number, description: 'The size declared when the upload was submitted (`sizeBytes`)' })
  declaredBytes?: number;
  @ApiProperty({ type: String, enum: GPD_STATUSES }) status: GpdStatus;
  @ApiPropertyOptional({ type: String, format: 'uuid' }) jobId?: string;
  @ApiProperty({ type: Number }) rowsRead: number;
  @ApiProperty({ type: Number }) rowsWritten: number;
  @ApiProperty({ type: Number }) rowsRejected: number;
  @ApiProperty({ type: [RejectedRowDto], description: 'The first 100 rejected rows, or the structural errors of a failed file' })
  errors: RejectedRowDto[];
  @ApiPropertyOptional({ type: ConformanceDto, description: 'Counts per rule beyond the first rejected rows (conformance report)' })
  conformance?: ConformanceDto;
  @ApiPropertyOptional({ type: [UploadPartDto], description: 'FOCUS: the files of the upload' }) parts?: UploadPartDto[];
  @ApiPropertyOptional({ type: [String], description: 'FOCUS: the providers found (ProviderName / ServiceProviderName)' })
  providers?: string[];
  @ApiPropertyOptional({ type: [ImportScopeDto], description: 'FOCUS: rows per (provider, billing account, billing period)' })
  scopes?: ImportScopeDto[];
  @ApiPropertyOptional({ type: [ReplacementDto], description: 'Rows of older uploads this one replaced' }) replaced?: ReplacementDto[];
  @ApiPropertyOptional({ type: [String], description: 'The uploads that replaced this one' }) supersededBy?: string[];
  @ApiProperty({ type: String, format: 'date-time' }) createdAt: Date;
  @ApiProperty({ type: String, format: 'date-time' }) updatedAt: Date;
}

export class EnrichRequest {
  @ApiProperty({ type: [String] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @IsUUID('all', { each: true })
  GPDUploadRefId: string[];

  @ApiProperty({ type: [String], description: 'Providers the uploads must belong to (case-insensitive); empty = any' })
  @IsArray()
  @ArrayMaxSize(100)
  @IsSafeText(100, { each: true })
  provider: string[];

  @ApiProperty({
    type: String,
    enum: ['true', 'false'],
    description: '`true` re-enriches uploads already enriched or failed (their rows are replaced)',
  })
  @IsIn(['true', 'false'])
  retry: 'true' | 'false';
}

export class EnrichJob {
  @ApiProperty({ type: String, format: 'uuid' }) GPDUploadRefId: string;
  @ApiProperty({ type: String, format: 'uuid' }) jobId: string;
}

export class EnrichStarted {
  @ApiProperty({ type: String, example: 'started' }) status: 'started';
  @ApiProperty({ type: [EnrichJob] }) jobs: EnrichJob[];
}

export class RetryRequest {
  @ApiProperty({ type: String, format: 'uuid' })
  @IsSafeText(64)
  jobId: string;
}

export class RetryAccepted {
  @ApiProperty({ type: String, example: 'accepted' }) status: 'accepted';
  @ApiProperty({ type: String, format: 'uuid' }) jobId: string;
}

export class CleanupRequest {
  @ApiProperty({ type: String, format: 'uuid' })
  @IsSafeText(64)
  GPDUploadRefId: string;
}

export class CleanupDone {
  @ApiProperty({ type: String, example: 'cleaned' }) status: 'cleaned';
  @ApiProperty({ type: String }) GPDUploadRefId: string;
  @ApiProperty({ type: Number }) costLineItemsRemoved: number;
  @ApiProperty({ type: Number }) assetsRemoved: number;
  @ApiProperty({ type: Number }) utilizationRemoved: number;
}

