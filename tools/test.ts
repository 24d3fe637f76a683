/**
 * `npm test`: the whole suite. Type-checks, runs the unit tests (nothing needed), then starts the
 * local stack under the `test` profile (own ports and data, so a running dev stack is left
 * alone), runs the e2e tests against it one file at a time (some stop and restart NATS), and
 * stops the stack (unless it was already running). The web console is built once, before the e2e
 * tests (its browser tests drive Debian's Chromium, installed with the stack's packages). Extra
 * arguments go to Jest and skip the type-check and unit steps: `npm test -- test/e2e/foundation`
 * (the console is then built only when a console test is named).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { stackDown, stackStatus, stackUp } from './stack';
import { BROWSER_PROGRAMS } from './stack/browser';

const root = join(__dirname, '..');
const bin = (name: string) => join(root, 'node_modules', '.bin', name);

const reports = join(root, '.stack', 'test', 'reports');
/**
 * e2e files that read datetimes from files (FOCUS imports, extension flows): run a second time
 * under a time zone far from UTC, because a datetime without an offset must read as UTC whatever
 * the server's zone.
 */
const ZONE_FILES = ['test/e2e/costasset-focus', 'test/e2e/costasset-extensions'];
const OTHER_ZONE = 'America/New_York';
const counted = { passed: 0, failed: 0 };

/** Adds a Jest JSON report's counts to the closing `tests: N passed, N failed` line. */
function count(report: string): void {
  if (!existsSync(report)) return;
  const result = JSON.parse(readFileSync(report, 'utf8')) as { numPassedTests: number; numFailedTests: number };
  counted.passed += result.numPassedTests;
  counted.failed += result.numFailedTests;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): number {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env });
  return result.status ?? 1;
}

async function main(): Promise<number> {
  const jestArgs = process.argv.slice(2);
  rmSync(reports, { recursive: true, force: true });
  mkdirSync(reports, { recursive: true });
  const focused = jestArgs.some((arg) => !arg.startsWith('-'));
  if (!focused) {
    process.stdout.write('test: type-check\n');
    if (run(bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']) !== 0) return 1;
    process.stdout.write('test: unit tests\n');
    const unit = run(bin('jest'), ['--selectProjects', 'unit', '--ci', '--json', `--outputFile=${join(reports, 'unit.json')}`]);
    count(join(reports, 'unit.json'));
    if (unit !== 0) return 1;
  }
  if (!focused || jestArgs.some((arg) => arg.includes('console'))) {
    process.stdout.write('test: building the web console\n');
    if (run('npm', ['run', '-s', 'build:console']) !== 0) return 1;
  }
  const profile = 'test';
  const alreadyRunning = (await stackStatus({ profile })).every((component) => component.state !== 'stopped');
  if (!alreadyRunning) {
    process.stdout.write('test: starting the stack (profile test)\n');
    for (const data of ['nats', 'mongo']) rmSync(join(root, '.stack', profile, data), { recursive: true, force: true });
  }
  const stackEnv = await stackUp({ profile, programs: BROWSER_PROGRAMS });
  try {
    process.stdout.write('test: e2e tests\n');
    const env = {
      ...process.env,
      ...stackEnv,
      // every e2e file runs in this one process (--runInBand), each booting the services in it: the
      // heap passes Node's default limit (about 4 GB) near the end of the suite; --logHeapUsage
      // prints it after every file, so that a file that keeps memory shows
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --max-old-space-size=8192`.trim(),
      STACK_PROFILE: profile,
      NODE_ENV: 'test',
      DEV_KEYS_DIR: join(root, '.stack', profile, 'keys'),
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    };
    const e2e = run(
      bin('jest'),
      [
        '--selectProjects',
        'e2e',
        '--runInBand',
        '--logHeapUsage',
        '--ci',
        '--json',
        `--outputFile=${join(reports, 'e2e.json')}`,
        ...jestArgs,
      ],
      env,
    );
    count(join(reports, 'e2e.json'));
    if (focused) return e2e;
    process.stdout.write(`test: e2e tests that read datetimes, again under TZ=${OTHER_ZONE}\n`);
    const zoned = run(
      bin('jest'),
      ['--selectProjects', 'e2e', '--runInBand', '--ci', '--json', `--outputFile=${join(reports, 'e2e-zone.json')}`, ...ZONE_FILES],
      { ...env, TZ: OTHER_ZONE },
    );
    count(join(reports, 'e2e-zone.json'));
    return e2e !== 0 ? e2e : zoned;
  } finally {
    // A stack that was already running (`STACK_PROFILE=test npm run stack -- up`) is left running.
    if (!alreadyRunning) await stackDown({ profile });
  }
}

main().then(
  (code) => {
    process.stdout.write(`tests: ${counted.passed} passed, ${counted.failed} failed\n`);
    process.exit(code);
  },
  (error: Error) => {
    process.stderr.write(`test: ${error.message}\n`);
    process.exit(1);
  },
);
