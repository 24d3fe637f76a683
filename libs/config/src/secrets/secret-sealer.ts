import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { loadSecretKey, SECRET_KEY_BYTES } from './secret-key';

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Format marker of a sealed value, so that a future algorithm or key version can be told apart. */
const FORMAT = 'gcm1';

/**
 * A sealed value that does not open: malformed, tampered, sealed under another key or for
 * another context. Retrying cannot help, so a job meeting it fails at once.
 */
export class SealedSecretError extends Error {
  override readonly name = 'SealedSecretError';
}

/**
 * Seals secrets at rest (the directory password, legacy API tokens) with AES-256-GCM: a random
 * 12-byte IV per seal, a full 16-byte tag, and the context (tenant and record) bound as
 * additional authenticated data, so that a sealed value copied into another tenant's or record's
 * place does not open. Sealed form: `gcm1:<iv>:<tag>:<ciphertext>`, each part base64url.
 */
export class SecretSealer {
  constructor(private readonly key: Buffer) {
    if (key.length !== SECRET_KEY_BYTES) throw new Error(`A sealing key must be ${SECRET_KEY_BYTES} bytes`);
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [FORMAT, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join(':');
  }

  /** Throws `SealedSecretError` for a malformed or tampered value, a wrong key or a wrong context. */
  open(sealed: string, context: string): string {
    const [format, iv, tag, ciphertext, ...extra] = sealed.split(':');
    if (format !== FORMAT || ciphertext === undefined || extra.length > 0) throw new SealedSecretError('The value is not a sealed secret');
    const ivBytes = Buffer.from(iv, 'base64url');
    const tagBytes = Buffer.from(tag, 'base64url');
    if (ivBytes.length !== IV_BYTES || tagBytes.length !== TAG_BYTES) throw new SealedSecretError('The sealed secret is malformed');
    const decipher = createDecipheriv(ALGORITHM, this.key, ivBytes, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(tagBytes);
    const body = decipher.update(Buffer.from(ciphertext, 'base64url'));
    try {
      return Buffer.concat([body, decipher.final()]).toString('utf8');
    } catch (error) {
      // final() is where GCM checks the tag; anything it throws means the value does not open
      throw new SealedSecretError('The sealed secret cannot be opened: wrong key, wrong context or tampered data', { cause: error });
    }
  }
}

/** The sealer keyed by `variable` of `env` (a generated dev key outside production). */
export function secretSealerFrom<V extends string>(
  env: { NODE_ENV: string; DEV_KEYS_DIR: string } & { [key in V]?: string },
  variable: V,
  devKeyFile: string,
): SecretSealer {
  const base64Key = (env as Record<string, string | undefined>)[variable];
  return new SecretSealer(
    loadSecretKey({ variable, base64Key, devKeysDir: env.DEV_KEYS_DIR, devKeyFile, allowDevKey: env.NODE_ENV !== 'production' }),
  );
}
