import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const KEY_BYTES = 32;
const FORMAT = 'gcm1';
export const DEV_MIGRATION_KEY_FILE = 'migration-encryption.key';

export interface MigrationKeySource {
  /** MIGRATION_ENCRYPTION_KEY: base64 of 32 random bytes. */
  base64Key?: string;
  devKeysDir: string;
  allowDevKey: boolean;
}

function decode(base64: string, origin: string): Buffer {
  const key = Buffer.from(base64.trim(), 'base64');
  if (key.length !== KEY_BYTES) throw new Error(`${origin} must be the base64 of ${KEY_BYTES} random bytes`);
  return key;
}

/** The key from the environment, or outside production a dev key created once in `devKeysDir` (exclusive create: concurrent starts agree). */
export function loadMigrationKey(source: MigrationKeySource): Buffer {
  if (source.base64Key) return decode(source.base64Key, 'MIGRATION_ENCRYPTION_KEY');
  if (!source.allowDevKey)
    throw new Error('MIGRATION_ENCRYPTION_KEY is required in production (base64 of 32 random bytes, e.g. `openssl rand -base64 32`)');
  const path = join(source.devKeysDir, DEV_MIGRATION_KEY_FILE);
  mkdirSync(source.devKeysDir, { recursive: true, mode: 0o700 });
  try {
    writeFileSync(path, randomBytes(KEY_BYTES).toString('base64'), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return decode(readFileSync(path, 'utf8'), path);
}

/**
 * AES-256-GCM for legacy API tokens while their migration waits. `context` (tenant and
 * migration id) is bound as associated data, so a sealed token only opens for its own migration.
 */
export class TokenCipher {
  constructor(private readonly key: Buffer) {
    if (key.length !== KEY_BYTES) throw new Error('the migration key must be 32 bytes');
  }

  seal(secret: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const data = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return [FORMAT, iv, cipher.getAuthTag(), data].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join(':');
  }

  open(sealed: string, context: string): string {
    const [format, iv, tag, data] = sealed.split(':');
    if (format !== FORMAT || !iv || !tag || data === undefined) throw new Error('not a sealed token');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }
}
