import { createLocalJWKSet, errors as joseErrors, JSONWebKeySet, JWTVerifyGetKey } from 'jose';

/** The key set could not be fetched or read: a 503, never the caller's fault. */
export class KeysUnavailableError extends Error {
  override readonly name = 'KeysUnavailableError';
}

/** The token names a key (`kid`) the key set does not hold, even after fetching it again. */
export class UnknownSigningKeyError extends Error {
  override readonly name = 'UnknownSigningKeyError';

  constructor(readonly kid: string | undefined) {
    super(`no key ${kid ?? '(without kid)'} in the key set`);
  }
}

export interface JwksKeySetOptions {
  /** Time-out of one fetch. */
  timeoutMs: number;
  /** A token with an unknown `kid` fetches the set again at most this often (key rotation, a restarted authz). */
  unknownKeyRefetchMs: number;
  /** After a failed fetch, the next one waits this long; callers meanwhile get `KeysUnavailableError` at once. */
  failureCooldownMs: number;
  /** The set is fetched again when older than this; the old one keeps serving if that fails. */
  maxAgeMs: number;
}

const DEFAULTS: JwksKeySetOptions = { timeoutMs: 3000, unknownKeyRefetchMs: 5000, failureCooldownMs: 1000, maxAgeMs: 10 * 60_000 };

/**
 * The public keys of authz, fetched from its JWKS address. Unlike jose's remote set, it tells a
 * fetch failure (`KeysUnavailableError`, a 503) from a key the set does not hold
 * (`UnknownSigningKeyError`, a 401), and fetches again when it meets an unknown `kid`, so that a
 * key rotation or an authz restarted with a new dev key does not lock callers out.
 */
export class JwksKeySet {
  private readonly options: JwksKeySetOptions;
  private keys?: ReturnType<typeof createLocalJWKSet>;
  private fetchedAt = 0;
  private failedAt = 0;
  private pending?: Promise<void>;

  constructor(
    private readonly url: URL,
    options: Partial<JwksKeySetOptions> = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
  }

  /** The key resolver jose's `jwtVerify` calls with the token's protected header. */
  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    if (!this.keys) await this.refresh();
    else if (Date.now() - this.fetchedAt > this.options.maxAgeMs) await this.refresh().catch(() => undefined);
    try {
      return await this.current()(header, token);
    } catch (error) {
      if (!(error instanceof joseErrors.JWKSNoMatchingKey)) throw error;
      if (Date.now() - this.fetchedAt < this.options.unknownKeyRefetchMs) throw new UnknownSigningKeyError(header.kid);
    }
    await this.refresh();
    try {
      return await this.current()(header, token);
    } catch (error) {
      if (error instanceof joseErrors.JWKSNoMatchingKey) throw new UnknownSigningKeyError(header.kid);
      throw error;
    }
  };

  private current(): ReturnType<typeof createLocalJWKSet> {
    if (!this.keys) throw new KeysUnavailableError('the key set has not been fetched');
    return this.keys;
  }

  /** One fetch at a time; concurrent callers share it. */
  private refresh(): Promise<void> {
    if (Date.now() - this.failedAt < this.options.failureCooldownMs) {
      return Promise.reject(new KeysUnavailableError(`the key set at ${this.url.href} could not be fetched a moment ago`));
    }
    this.pending ??= this.fetchKeys()
      .catch((error: unknown) => {
        this.failedAt = Date.now();
        throw error;
      })
      .finally(() => {
        this.pending = undefined;
      });
    return this.pending;
  }

  private async fetchKeys(): Promise<void> {
    let body: unknown;
    try {
      const response = await fetch(this.url, {
        signal: AbortSignal.timeout(this.options.timeoutMs),
        redirect: 'error',
        headers: { accept: 'application/json' },
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      body = await response.json();
    } catch (error) {
      throw new KeysUnavailableError(`the key set at ${this.url.href} cannot be fetched: ${(error as Error).message}`, { cause: error });
    }
    try {
      this.keys = createLocalJWKSet(body as JSONWebKeySet);
    } catch (error) {
      throw new KeysUnavailableError(`the key set at ${this.url.href} is not a JSON Web Key Set`, { cause: error });
    }
    this.fetchedAt = Date.now();
    this.failedAt = 0;
  }
}
