import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ConfigEncryptionKeySource {
  /** base64 of 32 random bytes (CONFIG_ENCRYPTION_KEY). */
  base64Key?: string;
  devKeysDir: string;
  allowDevKey: boolean;
}

export const DEV_CONFIG_KEY_FILE = 'config-encryption.key';
const KEY_BYTES = 32;

function decode(base64: string, origin: string): Buffer {
  const key = Buffer.from(base64.trim(), 'base64');
  if (key.length !== KEY_BYTES) throw new Error(`${origin} must be the base64 of ${KEY_BYTES} random bytes`);
  return key;
}

/** Reads the dev key, creating it once; `wx` makes concurrent first starts agree on one key. */
function devKeyBase64(dir: string): string {
  const path = join(dir, DEV_CONFIG_KEY_FILE);
  try {
    return readFileSync(path, 'utf8');
  } catch {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    try {
      writeFileSync(path, randomBytes(KEY_BYTES).toString('base64'), { flag: 'wx', mode: 0o600 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    return readFileSync(path, 'utf8');
  }
}

/** The AES-256 key sealing configuration secrets: from the environment, or a generated dev key outside production. */
export function loadConfigEncryptionKey(source: ConfigEncryptionKeySource): Buffer {
  if (source.base64Key) return decode(source.base64Key, 'CONFIG_ENCRYPTION_KEY');
  if (!source.allowDevKey) {
    throw new Error('CONFIG_ENCRYPTION_KEY is required in production (base64 of 32 random bytes, e.g. `openssl rand -base64 32`)');
  }
  return decode(devKeyBase64(source.devKeysDir), join(source.devKeysDir, DEV_CONFIG_KEY_FILE));
}
