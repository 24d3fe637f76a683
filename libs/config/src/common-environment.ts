import { hostname } from 'node:os';
import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  Min,
  ValidateBy,
  ValidateIf,
  type ValidationArguments,
} from 'class-validator';
import { loadEnvironment } from './load-environment';

export const toBoolean = ({ value }: { value: unknown }) =>
  value === true || value === 'true' || value === '1' ? true : value === false || value === 'false' || value === '0' ? false : value;

/** The value is at most the (numeric) value of another variable of the same environment. */
const IsAtMost = (other: string) =>
  ValidateBy({
    name: 'isAtMost',
    constraints: [other],
    validator: {
      validate: (value: unknown, args?: ValidationArguments) => {
        const limit = (args?.object as Record<string, unknown> | undefined)?.[other];
        return typeof value !== 'number' || typeof limit !== 'number' || value <= limit;
      },
      defaultMessage: () => `must not be greater than ${other}`,
    },
  });

const needsNatsCredentials = (env: CommonEnvironment) =>
  env.NODE_ENV === 'production' || env.NATS_USER !== undefined || env.NATS_PASSWORD !== undefined;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Variables every service reads. Defaults are the local stack's (`npm run stack -- up`). */
export class CommonEnvironment {
  @IsIn(['development', 'test', 'production'])
  NODE_ENV: 'development' | 'test' | 'production' = 'development';

  @IsIn(LOG_LEVELS)
  LOG_LEVEL: (typeof LOG_LEVELS)[number] = 'info';

  /** Address the HTTP server binds: loopback unless told otherwise (`0.0.0.0` in containers). */
  @Matches(/^[A-Za-z0-9.:-]{1,253}$/, { message: 'must be an IP address or a host name' })
  HOST: string = '127.0.0.1';

  /** Names this process in every log line and job log (several instances share one queue). */
  @Matches(/^[A-Za-z0-9._:@-]{1,128}$/, { message: 'must be 1-128 letters, digits or ._:@-' })
  INSTANCE_ID: string = `${hostname()}:${process.pid}`;

  /** The gateway's public base URL, declared as the OpenAPI documents' server (`/`, the same origin, when unset). */
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  PUBLIC_BASE_URL?: string;

  @Matches(/^mongodb(\+srv)?:\/\/.+/, { message: 'must be a mongodb:// or mongodb+srv:// URI' })
  MONGODB_URI: string = 'mongodb://127.0.0.1:27017/corelite';

  /** Build each collection's declared indexes at start-up (mongoose `autoIndex`); off when operators manage indexes. */
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  MONGODB_AUTO_INDEX: boolean = true;

  /** Time limit (`maxTimeMS`) of a read: find, count, a page (a 503 `DATABASE_TIMEOUT` past it). */
  @IsInt()
  @Min(1)
  @Max(600_000)
  MONGODB_MAX_TIME_READ_MS: number = 5_000;

  /** Time limit of an aggregation (reports, costs, budgets, summaries). */
  @IsInt()
  @Min(1)
  @Max(600_000)
  MONGODB_MAX_TIME_AGGREGATE_MS: number = 15_000;

  /** Time limit of a write of one document. */
  @IsInt()
  @Min(1)
  @Max(600_000)
  MONGODB_MAX_TIME_WRITE_MS: number = 5_000;

  /** Time limit of a write of many documents: bulk writes and `updateMany`/`deleteMany`, mostly by jobs. */
  @IsInt()
  @Min(1)
  @Max(3_600_000)
  MONGODB_MAX_TIME_BULK_MS: number = 120_000;

  @Matches(/^(nats|tls):\/\/.+/, { message: 'must be a nats:// or tls:// URL (comma-separated for a cluster)' })
  NATS_URL: string = 'nats://127.0.0.1:4222';

  @IsInt()
  @Min(100)
  @Max(60_000)
  NATS_REQUEST_TIMEOUT_MS: number = 3000;

  /**
   * This service's own NATS user and its password: the server gives each user the subjects it may
   * publish and subscribe to. Required in production; elsewhere both or neither (a server without
   * authorization).
   */
  @ValidateIf(needsNatsCredentials)
  @Matches(/^[A-Za-z0-9._-]{1,128}$/, { message: 'is required in production and with NATS_PASSWORD: 1-128 letters, digits or ._-' })
  NATS_USER?: string;

  @ValidateIf(needsNatsCredentials)
  @Matches(/^\S{8,1024}$/, { message: 'is required in production and with NATS_USER: 8-1024 characters, no white space' })
  NATS_PASSWORD?: string;

  /** Prefix of every NATS subject and stream of this deployment (letters, digits, `_`, `-`). */
  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]{1,64}$/)
  NATS_NAMESPACE?: string;

  @IsString()
  JWT_ISSUER: string = 'corelite-authz';

  /** Upper bound on the age of a cached principal (teams, roles): change events normally drop it sooner. */
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  PRINCIPAL_CACHE_TTL_MS: number = 60_000;

  /** Comma-separated tenant ids bootstrapped at start-up (role, org, team and admin user). */
  @IsString()
  BOOTSTRAP_TENANTS: string = 'default';

  @IsString()
  BOOTSTRAP_ADMIN: string = 'admin';

  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  SWAGGER_ENABLED: boolean = true;

  /**
   * Requests this instance serves at once; the next one is refused at once with 503 `SERVER_BUSY`
   * and `Retry-After` (health, metrics, the key set and token refresh are always served).
   */
  @IsInt()
  @Min(1)
  @Max(10_000)
  HTTP_MAX_IN_FLIGHT: number = 32;

  /**
   * Of those, requests to heavy routes (whose database work grows with the tenant's data: line-item
   * pages and totals, cost queries, report executions, data summaries) served at once; the next is
   * refused the same way. Sized so that what is admitted finishes within its time limits (see
   * docs/running.md, Under load); at most HTTP_MAX_IN_FLIGHT.
   */
  @IsInt()
  @Min(1)
  @Max(10_000)
  @IsAtMost('HTTP_MAX_IN_FLIGHT')
  HTTP_MAX_HEAVY_IN_FLIGHT: number = 4;

  /** A port of its own for `GET /metrics` (then the service's port does not answer it); unset: the service's port. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(65535)
  METRICS_PORT?: number;

  /** The address of the METRICS_PORT listener (loopback unless told otherwise). */
  @Matches(/^[A-Za-z0-9.:-]{1,253}$/, { message: 'must be an IP address or a host name' })
  METRICS_HOST: string = '127.0.0.1';

  @IsInt()
  @Min(1024)
  @Max(64 * 1024 * 1024)
  HTTP_BODY_LIMIT_BYTES: number = 1024 * 1024;

  /** Deepest nesting of arrays and objects in a JSON body, checked on the raw bytes before parsing (400 above). */
  @IsInt()
  @Min(2)
  @Max(256)
  HTTP_JSON_MAX_DEPTH: number = 32;

  /** Most items of one array in a JSON body (413 above). */
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  HTTP_JSON_MAX_ARRAY_LENGTH: number = 10_000;

  /**
   * Most characters of one string (key or value) in a JSON body (413 above); above every field's own limit, so that those answer
   * first, naming the field.
   */
  @IsInt()
  @Min(64)
  @Max(64 * 1024 * 1024)
  HTTP_JSON_MAX_STRING_LENGTH: number = 131_072;

  /** Deepest bracket nesting of a query parameter (`a[b][c]` is 2; 400 above). */
  @IsInt()
  @Min(1)
  @Max(20)
  HTTP_QUERY_MAX_DEPTH: number = 5;

  /** Most items of one array in the query string (400 above). */
  @IsInt()
  @Min(1)
  @Max(10_000)
  HTTP_QUERY_MAX_ARRAY_LENGTH: number = 100;

  /** Most parameters in a query string (400 above). */
  @IsInt()
  @Min(1)
  @Max(10_000)
  HTTP_QUERY_MAX_PARAMETERS: number = 100;
}

/** A service instance's bounds of work in flight (HTTP_MAX_IN_FLIGHT, HTTP_MAX_HEAVY_IN_FLIGHT). */
export interface AdmissionBounds {
  maxInFlight: number;
  maxHeavyInFlight: number;
}

/**
 * `HTTP_MAX_IN_FLIGHT` and `HTTP_MAX_HEAVY_IN_FLIGHT` as every service reads them (defaults,
 * bounds), for the gateway in front of them: it passes no more requests than these to one instance
 * at once. Only these two variables are read, so that nothing else of the environment can fail here.
 */
export function admissionBoundsOf(source: NodeJS.ProcessEnv): AdmissionBounds {
  const admission = Object.fromEntries(
    (['HTTP_MAX_IN_FLIGHT', 'HTTP_MAX_HEAVY_IN_FLIGHT'] as const)
      .filter((name) => source[name] !== undefined)
      .map((name) => [name, source[name]]),
  );
  const env = loadEnvironment(CommonEnvironment, admission);
  return { maxInFlight: env.HTTP_MAX_IN_FLIGHT, maxHeavyInFlight: env.HTTP_MAX_HEAVY_IN_FLIGHT };
}

/** Common variables plus the object store (MinIO, S3 or the local s3rver). */
export class ObjectStoreEnvironment extends CommonEnvironment {
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  S3_ENDPOINT: string = 'http://127.0.0.1:4569';

  @IsString()
  S3_ACCESS_KEY: string = 'S3RVER';

  @IsString()
  S3_SECRET_KEY: string = 'S3RVER';

  @IsString()
  S3_BUCKET: string = 'corelite';

  @IsString()
  S3_REGION: string = 'us-east-1';
}
