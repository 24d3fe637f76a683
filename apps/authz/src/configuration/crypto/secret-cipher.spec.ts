import { randomBytes } from 'node:crypto';
import { SecretCipher, SecretDecryptionError } from './secret-cipher';

describe('SecretCipher', () => {
  const cipher = new SecretCipher(randomBytes(32));
  const context = 'default:_ldap_config';

  it('round-trips a secret and never holds the clear text in the sealed form', () => {
    const sealed = cipher.seal('s3cr3t-pässword', context);
    expect(sealed).toMatch(/^gcm1:[\w-]+:[\w-]+:[\w-]+$/);
    expect(sealed).not.toContain('s3cr3t');
    expect(cipher.open(sealed, context)).toBe('s3cr3t-pässword');
  });

  it('uses a fresh 12-byte IV for every seal', () => {
    const first = cipher.seal('same', context);
    const second = cipher.seal('same', context);
    expect(first).not.toBe(second);
    expect(Buffer.from(first.split(':')[1], 'base64url')).toHaveLength(12);
  });

  it('refuses tampered ciphertext, tag or IV', () => {
    const [format, iv, tag, data] = cipher.seal('secret', context).split(':');
    const flip = (part: string) => {
      const bytes = Buffer.from(part, 'base64url');
      bytes[0] ^= 0x01;
      return bytes.toString('base64url');
    };
    for (const tampered of [
      [format, iv, tag, flip(data)],
      [format, iv, flip(tag), data],
      [format, flip(iv), tag, data],
    ]) {
      expect(() => cipher.open(tampered.join(':'), context)).toThrow(SecretDecryptionError);
    }
  });

  it('refuses a wrong key and a wrong context', () => {
    const sealed = cipher.seal('secret', context);
    expect(() => new SecretCipher(randomBytes(32)).open(sealed, context)).toThrow(SecretDecryptionError);
    expect(() => cipher.open(sealed, 'other:_ldap_config')).toThrow(SecretDecryptionError);
  });

  it('refuses malformed values and truncated tags', () => {
    const [format, iv, tag, data] = cipher.seal('secret', context).split(':');
    for (const bad of [
      '',
      'plain-text',
      `gcm0:${iv}:${tag}:${data}`,
      `${format}:${iv}:${tag.slice(0, 8)}:${data}`,
      `${format}:${iv}:${tag}:${data}:x`,
    ]) {
      expect(() => cipher.open(bad, context)).toThrow(SecretDecryptionError);
    }
  });

  it('requires a 32-byte key', () => {
    expect(() => new SecretCipher(randomBytes(16))).toThrow(/32 bytes/);
  });
});
