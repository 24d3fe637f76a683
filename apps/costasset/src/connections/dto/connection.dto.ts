import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsUrl,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { IsSafeText } from '@lib/http';
import { CONNECTION_LAYOUTS, CONNECTION_TYPES, ConnectionLayout, ConnectionType } from '../schemas/connection.schema';
import { FILE_OUTCOMES, FileOutcome, RUN_STATUSES, RunStatus } from '../schemas/connection-run.schema';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);
const ENDPOINT_URL = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };
/** Printable ASCII without spaces: keys, secrets and tokens. */
const TOKEN = /^[\x21-\x7e]{1,4096}$/;
export const MIN_INTERVAL_MINUTES = 15;
export const MAX_INTERVAL_MINUTES = 44_640;

/** Where the exports are. `s3`: `region`, `bucket` (and `endpoint` for any service but AWS). `azure-blob`: `accountUrl`, `container`. */
export class ConnectionSourceDto {
  /**
   * s3: the S3 API's URL (AWS's regional endpoint when absent). Private and loopback hosts are
   * refused unless CONNECTIONS_ALLOW_PRIVATE_HOSTS=true
   * @example "https://s3.us-east-1.amazonaws.com"
   */
  @IsOptional()
  @IsSafeText(2048)
  @IsUrl(ENDPOINT_URL)
  endpoint?: string;

  /**
   * s3: the bucket's region
   * @example "us-east-1"
   */
  @IsOptional()
  @Matches(/^[a-z0-9][a-z0-9-]{0,31}$/, { message: 'region must be lower-case letters, digits and dashes' })
  region?: string;

  /**
   * s3: the bucket
   * @example "billing-exports"
   */
  @IsOptional()
  @Matches(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, { message: 'bucket must be an S3 bucket name' })
  bucket?: string;

  /**
   * azure-blob: the account's blob endpoint
   * @example "https://contosobilling.blob.core.windows.net"
   */
  @IsOptional()
  @IsSafeText(2048)
  @IsUrl(ENDPOINT_URL)
  accountUrl?: string;

  /**
   * azure-blob: the container
   * @example "exports"
   */
  @IsOptional()
  @MaxLength(63)
  @Matches(/^[a-z0-9](?!.*--)[a-z0-9-]{1,61}[a-z0-9]$/, { message: 'container must be a Blob Storage container name' })
  container?: string;

  /**
   * The folder the exports are under (no leading slash); empty for the whole bucket
   * @example "exports/"
   */
  @IsOptional()
  @IsSafeText(1024, { allowEmpty: true })
  @Matches(/^(?!\/)/, { message: 'prefix must not start with a slash' })
  prefix?: string;
}

/** Sealed at rest and never returned (only the access key id is shown). */
export class ConnectionCredentialsDto {
  /** s3: the access key id */
  @ApiPropertyOptional({ maxLength: 256 })
  @IsOptional()
  @Matches(/^[\x21-\x7e]{1,256}$/, { message: 'accessKeyId must be printable characters without spaces' })
  accessKeyId?: string;

  /** s3: the secret access key */
  @ApiPropertyOptional({ writeOnly: true, maxLength: 4096 })
  @IsOptional()
  @Matches(TOKEN, { message: 'secretAccessKey must be printable characters without spaces' })
  secretAccessKey?: string;

  /** azure-blob: a SAS token of the container or account (with list and read permissions) */
  @ApiPropertyOptional({ writeOnly: true, maxLength: 4096 })
  @IsOptional()
  @Matches(TOKEN, { message: 'sasToken must be printable characters without spaces' })
  sasToken?: string;

  /** azure-blob: the account name, with `accountKey` (instead of a SAS token) */
  @IsOptional()
  @Matches(/^[a-z0-9]{3,24}$/, { message: 'accountName must be a storage account name' })
  accountName?: string;

  /** azure-blob: the account key */
  @ApiPropertyOptional({ writeOnly: true, maxLength: 4096 })
  @IsOptional()
  @Matches(TOKEN, { message: 'accountKey must be printable characters without spaces' })
  accountKey?: string;
}

/** When the connection syncs by itself: a cron expression or an interval (one of them). */
export class ConnectionScheduleDto {
  /**
   * Five fields (minute hour day-of-month month day-of-week), in `timezone`
   * @example "0 6 * * *"
   */
  @IsOptional()
  @Transform(trim)
  @IsSafeText(128)
  cron?: string;

  /** Minutes between syncs (15 to 44,640) */
  @IsOptional()
  @IsInt()
  @Min(MIN_INTERVAL_MINUTES)
  @Max(MAX_INTERVAL_MINUTES)
  intervalMinutes?: number;

  /**
   * An IANA time zone for the cron expression
   * @example "UTC"
   */
  @IsOptional()
  @IsSafeText(64)
  timezone?: string;
}

export class CreateConnectionRequest {
  /**
   * A name for people, unique in the tenant
   * @example "AWS payer account"
   */
  @Transform(trim)
  @IsSafeText(128)
  name: string;

  @ApiProperty({ enum: CONNECTION_TYPES })
  @IsIn(CONNECTION_TYPES)
  type: ConnectionType;

  /** How the exports are laid out: the manifests of AWS Data Exports or Azure exports, or plain FOCUS files */
  @ApiProperty({ enum: CONNECTION_LAYOUTS })
  @IsIn(CONNECTION_LAYOUTS)
  layout: ConnectionLayout;

  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => ConnectionSourceDto)
  source: ConnectionSourceDto;

  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => ConnectionCredentialsDto)
  credentials: ConnectionCredentialsDto;

  /** Absent: the connection syncs only when asked */
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ConnectionScheduleDto)
  schedule?: ConnectionScheduleDto;

  /** Whether the schedule runs (default true) */
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

/** The fields given change; the type and layout do not. A changed source or credentials is tested again. */
export class UpdateConnectionRequest {
  @IsOptional()
  @Transform(trim)
  @IsSafeText(128)
  name?: string;

  /** Fields given replace the stored ones */
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ConnectionSourceDto)
  source?: ConnectionSourceDto;

  /** Replaces the stored credentials whole */
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ConnectionCredentialsDto)
  credentials?: ConnectionCredentialsDto;

  /** `null` removes the schedule */
  @ApiPropertyOptional({ type: ConnectionScheduleDto, nullable: true })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ConnectionScheduleDto)
  schedule?: ConnectionScheduleDto | null;

  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

export class ConnectionSourceResponse {
  endpoint?: string;
  region?: string;
  bucket?: string;
  accountUrl?: string;
  container?: string;
  prefix: string;
}

export class ConnectionCredentialsResponse {
  /** How the connection signs in */
  @ApiProperty({ enum: ['access-key', 'sas-token', 'account-key'] })
  kind: 'access-key' | 'sas-token' | 'account-key';
  /** s3: the access key id (the secret is never returned) */
  accessKeyId?: string;
  /** azure-blob with an account key: the account */
  accountName?: string;
}

export class ConnectionScheduleResponse {
  cron?: string;
  intervalMinutes?: number;
  timezone: string;
}

export class RunFileResponse {
  key: string;
  etag: string;
  sizeBytes: number;
  @ApiProperty({ enum: FILE_OUTCOMES })
  outcome: FileOutcome;
  reason?: string;
  billingPeriod?: string;
  execution?: string;
  uploadId?: string;
}

/** What a test of the connection found. */
export class ConnectionTestResponse {
  /** Whether the connection can be synced: the listing answered and the layout finds exports to import */
  ok: boolean;
  checkedAt: string;
  /** The bucket or container read */
  location: string;
  /** Objects under the prefix (at most CONNECTIONS_MAX_OBJECTS are listed) */
  objects: number;
  /** The layout the objects look like, when one does (null when none) */
  @ApiProperty({ enum: CONNECTION_LAYOUTS, nullable: true })
  layoutDetected: ConnectionLayout | null;
  /** Billing periods (or folders) the layout would import */
  billingPeriods: string[];
  /** Deliveries the next sync would import */
  importable: number;
  /** The first problem, spelled out (absent when ok) */
  problem?: string;
  /** Up to 20 objects the layout rejects, with why */
  rejected: RunFileResponse[];
}

export class ConnectionRunSummary {
  runId: string;
  jobId: string;
  @ApiProperty({ enum: ['manual', 'schedule'] })
  trigger: 'manual' | 'schedule';
  @ApiProperty({ enum: RUN_STATUSES })
  status: RunStatus;
  startedAt: string;
  finishedAt: string | null;
  /** Objects listed under the prefix */
  found: number;
  /** Files imported (copied and handed to the FOCUS import) */
  imported: number;
  /** Files not read: unchanged since an earlier sync, older deliveries, manifests */
  skipped: number;
  /** Files that do not belong to the layout or cannot be imported */
  rejected: number;
  bytesImported: number;
  error?: string;
}

export class ConnectionResponse {
  id: string;
  name: string;
  @ApiProperty({ enum: CONNECTION_TYPES })
  type: ConnectionType;
  @ApiProperty({ enum: CONNECTION_LAYOUTS })
  layout: ConnectionLayout;
  source: ConnectionSourceResponse;
  credentials: ConnectionCredentialsResponse;
  @ApiProperty({ type: ConnectionScheduleResponse, nullable: true })
  schedule: ConnectionScheduleResponse | null;
  enabled: boolean;
  /** When the schedule runs next (null without a schedule or when disabled) */
  nextSyncAt: string | null;
  /** Whether a sync is queued or running */
  syncing: boolean;
  @ApiProperty({ type: ConnectionTestResponse, nullable: true })
  lastCheck: ConnectionTestResponse | null;
  @ApiProperty({ type: ConnectionRunSummary, nullable: true })
  lastRun: ConnectionRunSummary | null;
  createdAt: string;
  updatedAt: string;
}

export class ConnectionListResponse {
  @ApiProperty({ type: [ConnectionResponse] })
  items: ConnectionResponse[];
}

export class SyncStartedResponse {
  runId: string;
  jobId: string;
  /** True when a sync of the connection was already queued or running: this is that one */
  alreadyRunning: boolean;
}

export class RunImportResponse {
  billingPeriod: string;
  execution: string;
  uploadId: string;
  jobId: string;
  files: number;
  bytes: number;
  /** The upload's status now (`importing`, `imported`, `failed`, `superseded` …) */
  uploadStatus: string;
}

export class RunProgressResponse {
  filesDone: number;
  filesTotal: number;
  bytesDone: number;
  bytesTotal: number;
}

export class ConnectionRunResponse extends ConnectionRunSummary {
  connectionId: string;
  progress: RunProgressResponse;
  @ApiProperty({ type: [RunImportResponse] })
  imports: RunImportResponse[];
  /** Every file listed and its outcome (the first 2,000) */
  @ApiProperty({ type: [RunFileResponse] })
  files: RunFileResponse[];
  filesTruncated: boolean;
}

export class ConnectionRunListResponse {
  @ApiProperty({ type: [ConnectionRunSummary] })
  items: ConnectionRunSummary[];
  nextCursor: string | null;
}
