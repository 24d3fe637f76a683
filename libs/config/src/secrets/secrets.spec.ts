import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readOrCreateDevKey } from './dev-key-file';
import { loadSecretKey } from './secret-key';
import { SealedSecretError, SecretSealer } from './secret-sealer';

describe('SecretSealer', () => {
  const sealer = new SecretSealer(randomBytes(32));
  const context = 'default/_ldap_config/password';

  it('round-trips a secret and never holds the clear text in the sealed form', () => {
    const sealed = sealer.seal('s3cr3t-pässword', context);
    expect(sealed).toMatch(/^gcm1:[\w-]+:[\w-]+:[\w-]+$/);
    expect(sealed).not.toContain('s3cr3t');
    expect(sealer.open(sealed, context)).toBe('s3cr3t-pässword');
  });

  it('uses a fresh 12-byte IV for every seal', () => {
    const first = sealer.seal('same', context);
    expect(first).not.toBe(sealer.seal('same', context));
    expect(Buffer.from(first.split(':')[1], 'base64url')).toHaveLength(12);
  });

  it('refuses tampered ciphertext, tag or IV', () => {
    const [format, iv, tag, data] = sealer.seal('secret', context).split(':');
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
      expect(() => sealer.open(tampered.join(':'), context)).toThrow(SealedSecretError);
    }
  });

  it('refuses a wrong key and a wrong context', () => {
    const sealed = sealer.seal('secret', context);
    expect(() => new SecretSealer(randomBytes(32)).open(sealed, context)).toThrow(SealedSecretError);
    expect(() => sealer.open(sealed, 'other/_ldap_config/password')).toThrow(SealedSecretError);
  });

  it('refuses malformed values and truncated tags (a 4-byte tag would be forgeable)', () => {
    const [format, iv, tag, data] = sealer.seal('secret', context).split(':');
    const shortTag = Buffer.from(tag, 'base64url').subarray(0, 4).toString('base64url');
    for (const bad of [
      '',
      'plain-text',
      `gcm0:${iv}:${tag}:${data}`,
      `${format}:${iv}:${shortTag}:${data}`,
      `${format}:${iv}:${tag}:${data}:x`,
    ]) {
      expect(() => sealer.open(bad, context)).toThrow(SealedSecretError);
    }
  });

  it('requires a 32-byte key', () => {
    expect(() => new SecretSealer(randomBytes(16))).toThrow(/32 bytes/);
  });
});

describe('loadSecretKey', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'secret-key-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const source = { variable: 'SOME_ENCRYPTION_KEY', devKeyFile: 'some.key' };

  it('uses the variable when set, and refuses one that is not 32 bytes, naming it', () => {
    const key = randomBytes(32);
    expect(loadSecretKey({ ...source, base64Key: key.toString('base64'), devKeysDir: dir, allowDevKey: false }).equals(key)).toBe(true);
    expect(() => loadSecretKey({ ...source, base64Key: randomBytes(16).toString('base64'), devKeysDir: dir, allowDevKey: true })).toThrow(
      /SOME_ENCRYPTION_KEY must be the base64 of 32 random bytes/,
    );
  });

  it('fails clearly in production without a key', () => {
    expect(() => loadSecretKey({ ...source, devKeysDir: dir, allowDevKey: false })).toThrow(
      /SOME_ENCRYPTION_KEY is required in production/,
    );
  });

  it('generates a dev key once, readable by its owner only, and reuses it', () => {
    const first = loadSecretKey({ ...source, devKeysDir: join(dir, 'keys'), allowDevKey: true });
    expect(loadSecretKey({ ...source, devKeysDir: join(dir, 'keys'), allowDevKey: true }).equals(first)).toBe(true);
    const path = join(dir, 'keys', 'some.key');
    expect(Buffer.from(readFileSync(path, 'utf8'), 'base64').equals(first)).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });
});

describe('readOrCreateDevKey', () => {
  it('lets the first writer win', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dev-key-'));
    expect(readOrCreateDevKey(dir, 'k', () => 'first')).toBe('first');
    expect(readOrCreateDevKey(dir, 'k', () => 'second')).toBe('first');
    rmSync(dir, { recursive: true, force: true });
  });
});
