import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min } from 'class-validator';

export const toBoolean = ({ value }: { value: unknown }) =>
  value === true || value === 'true' || value === '1' ? true : value === false || value === 'false' || value === '0' ? false : value;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Variables every service reads. Defaults are the local stack's (`npm run stack -- up`). */
export class CommonEnvironment {
  @IsIn(['development', 'test', 'production'])
  NODE_ENV: 'development' | 'test' | 'production' = 'development';

  @IsIn(LOG_LEVELS)
  LOG_LEVEL: (typeof LOG_LEVELS)[number] = 'info';

  @Matches(/^mongodb(\+srv)?:\/\/.+/, { message: 'must be a mongodb:// or mongodb+srv:// URI' })
  MONGODB_URI: string = 'mongodb://127.0.0.1:27017/corelite';

  /** Build each collection's declared indexes at start-up (mongoose `autoIndex`); off when operators manage indexes. */
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  MONGODB_AUTO_INDEX: boolean = true;

  @Matches(/^(nats|tls):\/\/.+/, { message: 'must be a nats:// or tls:// URL (comma-separated for a cluster)' })
  NATS_URL: string = 'nats://127.0.0.1:4222';

  @IsInt()
  @Min(100)
  @Max(60_000)
  NATS_REQUEST_TIMEOUT_MS: number = 3000;

  /** Prefix of every NATS subject and stream of this deployment (letters, digits, `_`, `-`). */
  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]{1,64}$/)
  NATS_NAMESPACE?: string;

  @IsString()
  JWT_ISSUER: string = 'corelite-authz';

  /** Comma-separated tenant ids bootstrapped at start-up (role, org, team and admin user). */
  @IsString()
  BOOTSTRAP_TENANTS: string = 'default';

  @IsString()
  BOOTSTRAP_ADMIN: string = 'admin';

  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  SWAGGER_ENABLED: boolean = true;

  @IsInt()
  @Min(1024)
  @Max(64 * 1024 * 1024)
  HTTP_BODY_LIMIT_BYTES: number = 1024 * 1024;
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
