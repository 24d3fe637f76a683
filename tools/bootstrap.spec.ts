import { mkdtempSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// plain Node on purpose (it runs before any npm package is installed)
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { installReason, nodeIsRecentEnough } = require('./bootstrap.js') as {
  installReason(root: string): string | undefined;
  nodeIsRecentEnough(version: string): boolean;
};

function project(files: Record<string, number>): string {
  const root = mkdtempSync(join(tmpdir(), 'bootstrap-'));
  for (const [file, secondsAgo] of Object.entries(files)) {
    mkdirSync(join(root, file, '..'), { recursive: true });
    writeFileSync(join(root, file), '{}');
    const time = new Date(Date.now() - secondsAgo * 1000);
    utimesSync(join(root, file), time, time);
  }
  return root;
}

describe('bootstrap: when npm start / npm test install the npm dependencies', () => {
  it('installs on a fresh clone (no node_modules)', () => {
    expect(installReason(project({ 'package.json': 10, 'package-lock.json': 10 }))).toBe('node_modules is missing');
  });

  it('installs when the lock file or package.json changed after the last install', () => {
    const installed = { 'package.json': 100, 'node_modules/.corelite-installed': 50 };
    expect(installReason(project({ ...installed, 'package-lock.json': 10 }))).toBe('package-lock.json is newer than node_modules');
    expect(installReason(project({ 'package-lock.json': 100, 'node_modules/.corelite-installed': 50, 'package.json': 10 }))).toBe(
      'package.json is newer than node_modules',
    );
  });

  it('does nothing when node_modules is newer than both', () => {
    expect(
      installReason(project({ 'package.json': 100, 'package-lock.json': 100, 'node_modules/.corelite-installed': 10 })),
    ).toBeUndefined();
  });

  it("accepts a tree npm installed by itself (npm's hidden lock file)", () => {
    expect(
      installReason(project({ 'package.json': 100, 'package-lock.json': 100, 'node_modules/.package-lock.json': 10 })),
    ).toBeUndefined();
  });

  it('checks the Node.js version against engines (>= 20.19)', () => {
    expect(nodeIsRecentEnough('v20.19.0')).toBe(true);
    expect(nodeIsRecentEnough('v22.1.0')).toBe(true);
    expect(nodeIsRecentEnough('v20.18.3')).toBe(false);
    expect(nodeIsRecentEnough('v18.20.0')).toBe(false);
  });
});
