import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEV_CONFIG_KEY_FILE, loadConfigEncryptionKey } from './config-encryption-key';

describe('loadConfigEncryptionKey', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'config-key-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('uses CONFIG_ENCRYPTION_KEY when set, and refuses one that is not 32 bytes', () => {
    const key = randomBytes(32);
    expect(loadConfigEncryptionKey({ base64Key: key.toString('base64'), devKeysDir: dir, allowDevKey: false }).equals(key)).toBe(true);
    expect(() => loadConfigEncryptionKey({ base64Key: randomBytes(16).toString('base64'), devKeysDir: dir, allowDevKey: true })).toThrow(
      /32 random bytes/,
    );
  });

  it('fails clearly in production without a key', () => {
    expect(() => loadConfigEncryptionKey({ devKeysDir: dir, allowDevKey: false })).toThrow(
      /CONFIG_ENCRYPTION_KEY is required in production/,
    );
  });

  it('generates a dev key once and reuses it', () => {
    const first = loadConfigEncryptionKey({ devKeysDir: join(dir, 'keys'), allowDevKey: true });
    const second = loadConfigEncryptionKey({ devKeysDir: join(dir, 'keys'), allowDevKey: true });
    expect(first).toHaveLength(32);
    expect(second.equals(first)).toBe(true);
    const path = join(dir, 'keys', DEV_CONFIG_KEY_FILE);
    expect(Buffer.from(readFileSync(path, 'utf8'), 'base64').equals(first)).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });
});
