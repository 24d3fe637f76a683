/**
 * `npm run build:console`: the web console into dist/console. (1) both services' OpenAPI documents
 * are built offline and turned into the console's API types (tools/console/openapi.ts); (2) the
 * console is type-checked against them, so an API change that breaks the console fails here;
 * (3) Vite bundles it; (4) the initial JavaScript is measured and must stay within 300 KB gzipped.
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { describeBundle, INITIAL_JS_LIMIT_BYTES, measureBundle } from './bundle-size';

const root = path.join(__dirname, '..', '..');
const bin = (name: string) => path.join(root, 'node_modules', '.bin', name);

function step(what: string, command: string, args: string[]): void {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    process.stderr.write(`console: ${what} failed\n`);
    process.exit(result.status ?? 1);
  }
}

step('generating the API types', process.execPath, [
  '-r',
  path.join(root, 'test/support/swc-register.js'),
  path.join(__dirname, 'openapi.ts'),
]);
step('type-checking the console', bin('tsc'), ['-p', 'apps/console/tsconfig.json']);
step('bundling the console', bin('vite'), ['build', '--config', 'apps/console/vite.config.mts', '--logLevel', 'warn']);
const size = measureBundle();
process.stdout.write(`${describeBundle(size)}\n`);
if (size.initialJsGzip > INITIAL_JS_LIMIT_BYTES) {
  process.stderr.write('console: the initial JavaScript is over its budget; load more of it on demand\n');
  process.exit(1);
}
