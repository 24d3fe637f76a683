import { Provider } from '@nestjs/common';
import { AccessTokenVerifier, loadSigningKey, SigningKey, TokenIssuer, TokenVerifier } from '@lib/auth';
import { AuthzEnvironment } from '../authz.environment';

export const SIGNING_KEY = Symbol('SIGNING_KEY');

export const signingKeyProvider: Provider = {
  provide: SIGNING_KEY,
  inject: [AuthzEnvironment],
  useFactory: (env: AuthzEnvironment): Promise<SigningKey> =>
    loadSigningKey({ privateKeyPem: env.JWT_PRIVATE_KEY, devKeysDir: env.DEV_KEYS_DIR, allowDevKey: env.NODE_ENV !== 'production' }),
};

export const tokenIssuerProvider: Provider = {
  provide: TokenIssuer,
  inject: [SIGNING_KEY, AuthzEnvironment],
  useFactory: (key: SigningKey, env: AuthzEnvironment) => new TokenIssuer(key, env.JWT_ISSUER),
};

/** authz verifies with its own public key; the other services fetch it from the JWKS route. */
export const localVerifierProvider: Provider = {
  provide: AccessTokenVerifier,
  inject: [SIGNING_KEY, AuthzEnvironment],
  useFactory: (key: SigningKey, env: AuthzEnvironment) => TokenVerifier.withKey(key, env.JWT_ISSUER),
};
