import * as fs from 'node:fs';
import { join } from 'node:path';

/** What the build reads: a change to any of these makes `npm start` build again. */
export const BUILD_SOURCES = ['apps', 'libs', 'tsconfig.json', 'tsconfig.build.json', 'nest-cli.json', 'package-lock.json'];

/**
 * Written by the build itself, inside the sources (the console's API types, generated from the
 * services' code by tools/console/openapi.ts after the services are built): counting them as
 * sources would make every build out of date as soon as it ends.
 */
export const BUILD_PRODUCTS_IN_SOURCES = [join('apps', 'console', 'src', 'api', 'generated')];

/** The newest modification time under `path` (a file or a folder), in ms, leaving out `skipped` paths. */
function newestChange(path: string, skipped: Set<string>): number {
  if (skipped.has(path)) return 0;
  const stat = fs.statSync(path, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  return fs.readdirSync(path).reduce((newest, name) => Math.max(newest, newestChange(join(path, name), skipped)), stat.mtimeMs);
}

/** Whether every one of `outputs` (relative to `root`) is newer than every build source, so the build can be skipped. */
export function buildIsCurrent(root: string, outputs: string[]): boolean {
  const built = Math.min(...outputs.map((output) => fs.statSync(join(root, output), { throwIfNoEntry: false })?.mtimeMs ?? 0));
  const skipped = new Set(BUILD_PRODUCTS_IN_SOURCES.map((product) => join(root, product)));
  return built > 0 && BUILD_SOURCES.every((source) => newestChange(join(root, source), skipped) < built);
}
