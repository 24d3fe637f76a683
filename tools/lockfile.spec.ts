import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface LockedPackage {
  version?: string;
  integrity?: string;
  optionalDependencies?: Record<string, string>;
}

const lock = JSON.parse(readFileSync(join(__dirname, '..', 'package-lock.json'), 'utf8')) as {
  lockfileVersion: number;
  packages: Record<string, LockedPackage>;
};

/** Where Node would find `name` from the package at `from`: its own node_modules, then each parent's. */
function resolveLocked(from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
    if (lock.packages[candidate]) return candidate;
    if (!base) return undefined;
    const parent = base.lastIndexOf('/node_modules/');
    base = parent >= 0 ? base.slice(0, parent) : '';
  }
}

describe('package-lock.json', () => {
  it('pins every optional package of every platform, so installs on macOS, ARM or Windows change nothing', () => {
    const missing: string[] = [];
    for (const [path, meta] of Object.entries(lock.packages)) {
      for (const name of Object.keys(meta.optionalDependencies ?? {})) {
        if (!resolveLocked(path, name)) missing.push(`${path || '(root)'} → ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('pins each package by version and integrity', () => {
    const unpinned = Object.entries(lock.packages)
      .filter(([path, meta]) => path.startsWith('node_modules/') && !('link' in meta) && (!meta.version || !meta.integrity))
      .map(([path]) => path);
    expect(lock.lockfileVersion).toBe(3);
    expect(unpinned).toEqual([]);
  });
});
