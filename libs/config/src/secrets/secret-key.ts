import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { readOrCreateDevKey } from './dev-key-file';

export const SECRET_KEY_BYTES = 32;

export interface SecretKeySource {
  /** The environment variable holding the key, named in every message. */
  variable: string;
  /** Its value: the base64 of 32 random bytes. */
  base64Key?: string;
  /** Outside production, where a dev key is generated once when the variable is not set. */
  devKeysDir: string;
  devKeyFile: string;
  allowDevKey: boolean;
}

function decode(base64: string, origin: string): Buffer {
  const key = Buffer.from(base64.trim(), 'base64');
  if (key.length !== SECRET_KEY_BYTES) throw new Error(`${origin} must be the base64 of ${SECRET_KEY_BYTES} random bytes`);
  return key;
}

/**
 * The AES-256 key of a `SecretSealer`: from its environment variable, or outside production a dev
 * key generated once into the dev keys folder. Production without the variable does not start.
 */
export function loadSecretKey(source: SecretKeySource): Buffer {
  if (source.base64Key) return decode(source.base64Key, source.variable);
  if (!source.allowDevKey) {
    throw new Error(
      `${source.variable} is required in production (base64 of ${SECRET_KEY_BYTES} random bytes, e.g. \`openssl rand -base64 32\`)`,
    );
  }
  const stored = readOrCreateDevKey(source.devKeysDir, source.devKeyFile, () => randomBytes(SECRET_KEY_BYTES).toString('base64'));
  return decode(stored, join(source.devKeysDir, source.devKeyFile));
}
