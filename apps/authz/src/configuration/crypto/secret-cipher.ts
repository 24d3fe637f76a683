import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const ALGORITHM = 'aes-256-gcm';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Format marker of a sealed value, so that a future algorithm or key version can be told apart. */
const FORMAT = 'gcm1';

export class SecretDecryptionError extends Error {
  override readonly name = 'SecretDecryptionError';
}

/**
 * Seals secrets of configuration values at rest with AES-256-GCM and a random 12-byte IV per
 * seal. The context (tenant and key) is bound as additional authenticated data, so a sealed value
 * copied into another tenant's or key's record does not open. Sealed form:
 * `gcm1:<iv>:<tag>:<ciphertext>`, each part base64url.
 */
export class SecretCipher {
  constructor(private readonly key: Buffer) {
    if (key.length !== KEY_BYTES) throw new Error(`The configuration encryption key must be ${KEY_BYTES} bytes`);
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [FORMAT, iv, cipher.getAuthTag(), ciphertext]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join(':');
  }

  /** Throws SecretDecryptionError for a malformed or tampered value, a wrong key or a wrong context. */
  open(sealed: string, context: string): string {
    const [format, iv, tag, ciphertext, ...extra] = sealed.split(':');
    if (format !== FORMAT || ciphertext === undefined || extra.length > 0)
      throw new SecretDecryptionError('The value is not a sealed secret');
    const ivBytes = Buffer.from(iv, 'base64url');
    const tagBytes = Buffer.from(tag, 'base64url');
    if (ivBytes.length !== IV_BYTES || tagBytes.length !== TAG_BYTES) throw new SecretDecryptionError('The sealed secret is malformed');
    try {
      const decipher = createDecipheriv(ALGORITHM, this.key, ivBytes, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(tagBytes);
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretDecryptionError('The sealed secret cannot be decrypted: wrong key or tampered data');
    }
  }
}
