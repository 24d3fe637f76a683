import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The content of a dev key file in `dir`, created once with `generate()` when missing. The
 * exclusive create (`wx`) makes concurrent first starts (authz and costasset, two test files)
 * agree on one key; the file is readable by its owner only.
 */
export function readOrCreateDevKey(dir: string, file: string, generate: () => string): string {
  const path = join(dir, file);
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    writeFileSync(path, generate(), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return readFileSync(path, 'utf8');
}
