import { getHeapStatistics } from 'node:v8';
import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, IsString, IsUrl, Max, MaxLength, Min } from 'class-validator';
import { ObjectStoreEnvironment, toBoolean } from '@lib/config';

/** A quarter of this process's V8 heap limit, at most 1 GiB: 1 GiB on a 24 GiB machine, 256 MiB where the heap is 1 GiB. */
export const defaultParquetCap = () => Math.min(1024 ** 3, Math.floor(getHeapStatistics().heap_size_limit / 4));

export class CostassetEnvironment extends ObjectStoreEnvironment {
  @IsInt()
  @Min(1)
  @Max(65535)
  COSTASSET_PORT: number = 3002;

  /** The port of authz on this machine: where the JWKS is looked for unless AUTHZ_JWKS_URL says otherwise. */
  @IsInt()
  @Min(1)
  @Max(65535)
  AUTHZ_PORT: number = 3001;

  /** Where the public keys of authz are published; tokens are verified locally with them. */
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  AUTHZ_JWKS_URL?: string;

  /** AUTHZ_JWKS_URL, or the JWKS of the authz that runs beside this service on AUTHZ_PORT. */
  get jwksUrl(): string {
    if (this.AUTHZ_JWKS_URL) return this.AUTHZ_JWKS_URL;
    const host = ['0.0.0.0', '::'].includes(this.HOST) ? '127.0.0.1' : this.HOST.includes(':') ? `[${this.HOST}]` : this.HOST;
    return `http://${host}:${this.AUTHZ_PORT}/core/authorization/v1/.well-known/jwks.json`;
  }

  /** Largest GPD zip accepted for enrichment (250 MB by default). */
  @IsInt()
  @Min(1)
  GPD_MAX_FILE_BYTES: number = 250 * 1024 * 1024;

  /** Lifetime of a pre-signed upload URL: a PUT must start before it ends (a long upload started in time completes). */
  @IsInt()
  @Min(60)
  @Max(7 * 24 * 3600)
  GPD_UPLOAD_URL_TTL_SECONDS: number = 900;

  /** Rows written per bulk insert during enrichment. */
  @IsInt()
  @Min(1)
  @Max(100_000)
  GPD_BATCH_SIZE: number = 5000;

  /**
   * Percent of the rows read that may be rejected before an enrichment or FOCUS import ends
   * `completed_with_errors` instead of `succeeded` (0: any rejected row). Writing none fails.
   */
  @IsInt()
  @Min(0)
  @Max(100)
  INGEST_REJECTED_ROWS_THRESHOLD_PERCENT: number = 0;

  /** Largest file (one part) of a FOCUS upload. */
  @IsInt()
  @Min(1)
  FOCUS_MAX_FILE_BYTES: number = 5 * 1024 * 1024 * 1024;

  /**
   * Most memory one Parquet row group (read whole) or column chunk may take to read: compressed
   * bytes fetched plus decoded bytes. A file beyond it fails its import, naming the row group.
   */
  @IsInt()
  @Min(1024 * 1024)
  FOCUS_PARQUET_MEMORY_CAP_BYTES: number = defaultParquetCap();

  /** Most files (parts) one FOCUS upload may name. */
  @IsInt()
  @Min(1)
  @Max(10_000)
  FOCUS_MAX_PARTS: number = 1000;

  /**
   * An upload of at least this many parts is imported part by part: each part is a job of its own
   * that any instance takes (N instances import it about N times faster; a part that fails is
   * retried alone). 0 imports every upload as one job.
   */
  @IsInt()
  @Min(0)
  @Max(10_000)
  FOCUS_PART_JOBS_MIN_PARTS: number = 2;

  /** A job delivery without a heartbeat for this long is redelivered (crash recovery). */
  @IsInt()
  @Min(1000)
  @Max(3_600_000)
  JOBS_ACK_WAIT_MS: number = 30_000;

  /** Delay before the first retry of a failed attempt; each later retry waits four times longer. */
  @IsInt()
  @Min(0)
  @Max(600_000)
  JOBS_RETRY_DELAY_MS: number = 2000;

  /**
   * A running job without a heartbeat for this long has lost its worker: any instance's reaper
   * ends it `failed` and removes what it wrote. Attempts write one every sixth of it.
   */
  @IsInt()
  @Min(3000)
  @Max(3_600_000)
  JOBS_HEARTBEAT_DEADLINE_MS: number = 60_000;

  /** Ids deleted per `deleteMany` by a deletion request (data management); cancellation is checked between batches. */
  @IsInt()
  @Min(1)
  @Max(100_000)
  DATA_DELETION_BATCH_SIZE: number = 5000;

  /** Housekeeping removes saved report outputs generated longer ago than this. */
  @IsInt()
  @Min(1)
  REPORT_OUTPUT_RETENTION_DAYS: number = 30;

  /** Housekeeping removes finished job records (succeeded, failed, terminated) that ended longer ago than this. */
  @IsInt()
  @Min(1)
  JOB_RETENTION_DAYS: number = 30;

  /** Outdated-data cleanup keeps this many months before the current one. */
  @IsInt()
  @Min(1)
  @Max(1200)
  DATA_RETENTION_MONTHS: number = 24;

  /** Lets account migration read a legacy service on a private or loopback address (tests, labs). */
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  MIGRATION_ALLOW_PRIVATE_HOSTS: boolean = false;

  /** Lets data connections read buckets on private or loopback addresses (tests, labs, an in-house MinIO). */
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  CONNECTIONS_ALLOW_PRIVATE_HOSTS: boolean = false;

  /** base64 of 32 random bytes sealing the credentials of data connections; required in production. */
  @IsOptional()
  @IsString()
  CONNECTIONS_ENCRYPTION_KEY?: string;

  /** The most objects a connection lists under its prefix; a larger prefix is refused (narrow it). */
  @IsInt()
  @Min(100)
  @Max(10_000_000)
  CONNECTIONS_MAX_OBJECTS: number = 200_000;

  /** How often each instance looks for scheduled syncs that are due. */
  @IsInt()
  @Min(1000)
  @Max(3_600_000)
  CONNECTIONS_SCHEDULE_CHECK_MS: number = 60_000;

  /** base64 of 32 random bytes sealing legacy API tokens while a migration waits; required in production. */
  @IsOptional()
  @IsString()
  MIGRATION_ENCRYPTION_KEY?: string;

  /** Where a generated dev key is kept when MIGRATION_ENCRYPTION_KEY is not set (never in production). */
  @IsString()
  DEV_KEYS_DIR: string = '.dev-keys';

  @IsInt()
  @Min(100)
  @Max(600_000)
  MIGRATION_TIMEOUT_MS: number = 15_000;

  /** Largest legacy accounts response read. */
  @IsInt()
  @Min(1024)
  MIGRATION_MAX_RESPONSE_BYTES: number = 10 * 1024 * 1024;

  /** Most entries (files and folders) a raw-data zip may hold (10,000 by default). */
  @IsInt()
  @Min(1)
  RAW_MAX_ENTRIES: number = 10_000;

  /** Most bytes a raw-data zip may expand to, counted while streaming (1 GiB by default). */
  @IsInt()
  @Min(1)
  RAW_MAX_EXPANDED_BYTES: number = 1024 * 1024 * 1024;

  /** Largest extension zip accepted for validation and flows. */
  @IsInt()
  @Min(1024)
  EXTENSION_MAX_BYTES: number = 10 * 1024 * 1024;

  /** Time budget of one JSONata mapping expression on one raw row. */
  @IsInt()
  @Min(1)
  @Max(10_000)
  EXTENSION_ROW_TIMEOUT_MS: number = 100;

  /**
   * The SMTP server email channels send through, e.g. `smtp://user:password@mail.example.com:587`
   * (`smtps://` for TLS from the start). Unset: email channels cannot be created. `npm start` and
   * `npm test` set it to the local stack's SMTP server.
   */
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['smtp', 'smtps'] })
  SMTP_URL?: string;

  /** The sender of notification emails (`From`). */
  @IsString()
  @MaxLength(320)
  SMTP_FROM: string = 'corelite <notifications@corelite.invalid>';

  /** Lets notification webhooks reach private or loopback addresses (tests, labs), as MIGRATION_ALLOW_PRIVATE_HOSTS does for migration. */
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  NOTIFICATIONS_ALLOW_PRIVATE_HOSTS: boolean = false;

  /** base64 of 32 random bytes sealing webhook signing secrets and URLs; required in production. */
  @IsOptional()
  @IsString()
  NOTIFICATIONS_ENCRYPTION_KEY?: string;

  /** Attempts of one delivery before it is dead-lettered (the first is immediate). */
  @IsInt()
  @Min(1)
  @Max(20)
  NOTIFICATIONS_MAX_ATTEMPTS: number = 5;

  /** Delay before the second attempt; each next one waits four times longer, up to NOTIFICATIONS_RETRY_MAX_DELAY_MS. */
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  NOTIFICATIONS_RETRY_DELAY_MS: number = 10_000;

  @IsInt()
  @Min(0)
  @Max(24 * 3_600_000)
  NOTIFICATIONS_RETRY_MAX_DELAY_MS: number = 3_600_000;

  /** Time limit of one delivery attempt (connect, send, answer). */
  @IsInt()
  @Min(100)
  @Max(120_000)
  NOTIFICATIONS_TIMEOUT_MS: number = 10_000;

  /**
   * Where people reach the console: `PUBLIC_BASE_URL`, else the gateway `npm start` runs. Messages
   * (budget alerts, anomalies) link to the console views behind them.
   */
  get consoleUrl(): string {
    return (this.PUBLIC_BASE_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
  }
}
