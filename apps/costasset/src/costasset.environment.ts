import { IsInt, IsUrl, Max, Min } from 'class-validator';
import { ObjectStoreEnvironment } from '@lib/config';

export class CostassetEnvironment extends ObjectStoreEnvironment {
  @IsInt()
  @Min(1)
  @Max(65535)
  COSTASSET_PORT: number = 3002;

  /** Where the public keys of authz are published; tokens are verified locally with them. */
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  AUTHZ_JWKS_URL: string = 'http://127.0.0.1:3001/core/authorization/v1/.well-known/jwks.json';

  @IsInt()
  @Min(0)
  @Max(3_600_000)
  PRINCIPAL_CACHE_TTL_MS: number = 60_000;
}
