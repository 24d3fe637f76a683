import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEV_MIGRATION_KEY_FILE, loadMigrationKey, TokenCipher } from './token-cipher';

describe('TokenCipher', () => {
  const cipher = new TokenCipher(randomBytes(32));

  it('round-trips a token without holding it in clear', () => {
    const sealed = cipher.seal('legacy-token-123', 'default:m1');
    expect(sealed).not.toContain('legacy-token-123');
    expect(sealed.startsWith('gcm1:')).toBe(true);
    expect(cipher.open(sealed, 'default:m1')).toBe('legacy-token-123');
    expect(cipher.seal('same', 'c')).not.toBe(cipher.seal('same', 'c'));
  });

  it('refuses another context or tampered data', () => {
    const sealed = cipher.seal('secret', 'default:m1');
    expect(() => cipher.open(sealed, 'other:m1')).toThrow();
    const parts = sealed.split(':');
    parts[3] = Buffer.from('x' + Buffer.from(parts[3], 'base64url').toString('latin1'), 'latin1').toString('base64url');
    expect(() => cipher.open(parts.join(':'), 'default:m1')).toThrow();
  });
});

describe('loadMigrationKey', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'migration-key-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('uses the configured key and refuses a wrong length', () => {
    const key = randomBytes(32);
    expect(loadMigrationKey({ base64Key: key.toString('base64'), devKeysDir: dir, allowDevKey: false }).equals(key)).toBe(true);
    expect(() => loadMigrationKey({ base64Key: randomBytes(16).toString('base64'), devKeysDir: dir, allowDevKey: true })).toThrow(
      /32 random bytes/,
    );
  });

  it('requires a key in production and generates a dev key once otherwise', () => {
    expect(() => loadMigrationKey({ devKeysDir: dir, allowDevKey: false })).toThrow(/required in production/);
    const first = loadMigrationKey({ devKeysDir: join(dir, 'k'), allowDevKey: true });
    expect(loadMigrationKey({ devKeysDir: join(dir, 'k'), allowDevKey: true }).equals(first)).toBe(true);
    expect(statSync(join(dir, 'k', DEV_MIGRATION_KEY_FILE)).mode & 0o777).toBe(0o600);
  });
});
