import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsOptional, IsUUID, Matches } from 'class-validator';
import { IsSafeText, PageOf, PageQuery } from '@lib/http';
import { GPD_STATUSES } from '../schemas/gpd-upload.schema';
import type { GpdStatus } from '../schemas/gpd-upload.schema';

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
}

export class UploadSubmitted {
  @ApiProperty({ type: String, format: 'uuid' }) GPDUploadRefId: string;
  @ApiProperty({ type: String, description: 'Pre-signed PUT URL into the object store; PUT the zip bytes to it' }) uploadUrl: string;
  @ApiProperty({ type: String, format: 'date-time' }) expiresAt: string;
}

export class RejectedRowDto {
  @ApiProperty({ type: String }) file: string;
  @ApiProperty({ type: Number, description: 'CSV line (1 is the header); 0 for a problem of the archive' }) line: number;
  @ApiProperty({ type: String }) reason: string;
}

export class UploadRecordDto {
  @ApiProperty({ type: String, format: 'uuid' }) GPDUploadRefId: string;
  @ApiProperty({ type: String }) providerName: string;
  @ApiProperty({ type: String }) fileName: string;
  @ApiProperty({ type: String, enum: GPD_STATUSES }) status: GpdStatus;
  @ApiPropertyOptional({ type: String, format: 'uuid' }) jobId?: string;
  @ApiProperty({ type: Number }) rowsRead: number;
  @ApiProperty({ type: Number }) rowsWritten: number;
  @ApiProperty({ type: Number }) rowsRejected: number;
  @ApiProperty({ type: [RejectedRowDto], description: 'The first 100 rejected rows, or the structural errors of a failed file' })
  errors: RejectedRowDto[];
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

export class UploadRecordPage extends PageOf(UploadRecordDto) {}
