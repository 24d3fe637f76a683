import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { IsSafeText, PageQuery } from '@lib/http';
import { MIGRATION_RECORD_STATUSES, MigrationRecordStatus } from '../schemas/migration-record.schema';

export class StartMigrationRequest {
  @ApiProperty({
    type: String,
    description: 'API token of the legacy service; sealed (AES-256-GCM) while the job waits, removed when it ends, never returned',
    writeOnly: true,
  })
  @IsSafeText(4096)
  apiToken: string;

  @ApiProperty({ type: String, example: 'jdoe' })
  @IsSafeText(256)
  userName: string;

  @ApiProperty({
    type: String,
    example: 'https://legacy.example.com',
    description: 'http(s); private and loopback hosts are refused unless MIGRATION_ALLOW_PRIVATE_HOSTS=true',
  })
  @IsSafeText(2048)
  legacyURL: string;
}

export class StartMigrationResponse {
  @ApiProperty({ type: String })
  migrationId: string;

  @ApiProperty({ type: String, description: 'The `account-migration` job (GET /api/costasset/v1/jobs/{jobId})' })
  jobId: string;

  @ApiProperty({ type: String, enum: ['started'] })
  status: 'started';
}

/** The records of one migration (by default the latest), in pages in the order they were recorded. */
export class MigrationStatusQuery extends PageQuery {
  @ApiPropertyOptional({ enum: MIGRATION_RECORD_STATUSES })
  @IsOptional()
  @IsIn(MIGRATION_RECORD_STATUSES)
  status?: MigrationRecordStatus;

  @ApiPropertyOptional({ type: String, description: 'A migration; by default the latest one of the tenant' })
  @IsOptional()
  @IsSafeText(64)
  migrationId?: string;
}

export class MigrationRecordResponse {
  @ApiProperty({ type: String })
  migrationId: string;

  @ApiProperty({ type: String, description: 'The legacy account id (`#<index>` when the record had none)' })
  accountId: string;

  @ApiPropertyOptional({ type: String })
  provider?: string;

  @ApiPropertyOptional({ type: String })
  name?: string;

  @ApiProperty({ enum: MIGRATION_RECORD_STATUSES })
  status: MigrationRecordStatus;

  @ApiPropertyOptional({ type: String, description: 'Why the record failed' })
  reason?: string;
}

/** The interface's shape (records that succeeded and failed), one page of records at a time. */
export class MigrationStatusResponse {
  @ApiPropertyOptional({ type: [MigrationRecordResponse] })
  succeeded?: MigrationRecordResponse[];

  @ApiPropertyOptional({ type: [MigrationRecordResponse] })
  failed?: MigrationRecordResponse[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as `cursor` for the next page of records; null on the last page' })
  nextCursor: string | null;
}
