import { IsInt, IsOptional, IsString, Matches, Max, Min, ValidateIf } from 'class-validator';
import { CLAIM_FORMATS } from '@lib/auth';
import { CommonEnvironment } from '@lib/config';

export class AuthzEnvironment extends CommonEnvironment {
  @IsInt()
  @Min(1)
  @Max(65535)
  AUTHZ_PORT: number = 3001;

  /** PEM PKCS#8 (EC P-256 → ES256, RSA → RS256). Without it a dev key is generated into DEV_KEYS_DIR (refused in production). */
  @IsOptional()
  @IsString()
  JWT_PRIVATE_KEY?: string;

  @IsString()
  DEV_KEYS_DIR: string = '.dev-keys';

  /**
   * The IdP whose `BOOTSTRAP_ADMIN` is the bootstrap admin (a user is tenant, IdP and subject), and
   * the IdP that users and memberships stored before users were keyed by IdP are moved to at start-up.
   */
  @Matches(CLAIM_FORMATS.idp.pattern, { message: `must be an IdP id (${CLAIM_FORMATS.idp.rule})` })
  BOOTSTRAP_ADMIN_IDP: string = 'idp-default';

  @Matches(/^\d+[smhd]$/)
  ACCESS_TOKEN_TTL: string = '1h';

  @Matches(/^\d+[smhd]$/)
  REFRESH_TOKEN_TTL: string = '7d';

  /**
   * base64 of 32 random bytes: the AES-256-GCM key sealing secrets of configuration values (the
   * `_ldap_config` password). Required in production; elsewhere a dev key is generated into DEV_KEYS_DIR.
   */
  @ValidateIf((env: AuthzEnvironment) => env.NODE_ENV === 'production' || !!env.CONFIG_ENCRYPTION_KEY)
  @Matches(/^[A-Za-z0-9+/]{43}=$/, { message: 'must be the base64 of 32 random bytes (required in production)' })
  CONFIG_ENCRYPTION_KEY?: string;
}
