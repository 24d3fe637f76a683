import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { IsSafeText, PageQuery } from '@lib/http';
import { MIGRATION_RECORD_STATUSES, MigrationRecordStatus } from '../schemas/migration-record.schema';

export class StartMigrationRequest {
  /** API token of the legacy service; sealed (AES-256-GCM) while the job waits, removed when it ends, never returned */
  @ApiProperty({ writeOnly: true })
  @IsSafeText(4096)
  apiToken: string;

  /**
   *
   * @example "jdoe"
   */
  @IsSafeText(256)
  userName: string;

  /**
   * http(s); private and loopback hosts are refused unless MIGRATION_ALLOW_PRIVATE_HOSTS=true
   * @example "https://legacy.example.com"
   */
  @IsSafeText(2048)
  legacyURL: string;
}

export class StartMigrationResponse {
  migrationId: string;

  /** The `account-migration` job (GET /api/costasset/v1/jobs/{jobId}) */
  jobId: string;

  @ApiProperty({ enum: ['started'] })
  status: 'started';
}

/** The records of one migration (by default the latest), in pages in the order they were recorded. */
export class MigrationStatusQuery extends PageQuery {
  @ApiPropertyOptional({ enum: MIGRATION_RECORD_STATUSES })
  @IsOptional()
  @IsIn(MIGRATION_RECORD_STATUSES)
  status?: MigrationRecordStatus;

  /** A migration; by default the latest one of the tenant */
  @IsOptional()
  @IsSafeText(64)
  migrationId?: string;
}

export class MigrationRecordResponse {
  migrationId: string;

  /** The legacy account id (`#<index>` when the record had none) */
  accountId: string;

  provider?: string;

  name?: string;

  @ApiProperty({ enum: MIGRATION_RECORD_STATUSES })
  status: MigrationRecordStatus;

  /** Why the record failed */
  reason?: string;
}

/** The interface's shape (records that succeeded and failed), one page of records at a time. */
export class MigrationStatusResponse {
  succeeded?: MigrationRecordResponse[];

  failed?: MigrationRecordResponse[];

  /** Pass as `cursor` for the next page of records; null on the last page */
  @ApiProperty({ type: String, nullable: true })
  nextCursor: string | null;
}
