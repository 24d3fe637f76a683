/**
 * npm run stack -- up|down|status [component...] [--wipe | --purge]
 * Profile from STACK_PROFILE (dev by default, test for the test runner). See tools/stack/README.md.
 */
import { selectComponents, stackDown, stackStatus, stackUp } from './index';
import { describeStackEnv, stackEnvPath } from './stack-env';
import { resolveSettings } from './settings';
import { ComponentStatus } from './types';

const USAGE = 'usage: npm run stack -- up|down|status [nats|ldap|s3|mongo|smtp|azurite ...] [--wipe | --purge]';
const FLAGS = ['--purge', '--wipe'];

function formatStatus(status: ComponentStatus): string {
  const state = status.state === 'running' && status.healthy === false ? 'running (not answering)' : status.state;
  const pid = status.pid !== undefined ? `  pid ${status.pid}` : '';
  const url = status.url.replace(/(\/\/[^:/@]+:)[^@/]*@/, '$1***@');
  return `${status.name.padEnd(7)} ${state.padEnd(8)} ${url}${pid}`;
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  const purge = rest.includes('--purge');
  const wipe = rest.includes('--wipe');
  const components = selectComponents(rest.filter((arg) => !FLAGS.includes(arg)));
  const profile = resolveSettings(undefined, process.env).profile;
  const out = (line: string) => process.stdout.write(`${line}\n`);

  switch (command) {
    case 'up': {
      const started = Date.now();
      const stackEnv = await stackUp({ components, log: out });
      out(
        `stack: profile ${profile} up in ${((Date.now() - started) / 1000).toFixed(1)} s; ` +
          `${stackEnvPath(resolveSettings(profile, process.env))}:`,
      );
      for (const line of describeStackEnv(stackEnv)) out(`  ${line}`);
      return;
    }
    case 'down':
      await stackDown({ components, purge, wipe, log: out });
      out(`stack: profile ${profile} down`);
      return;
    case 'status':
      out(`stack: profile ${profile}`);
      for (const status of await stackStatus({ components })) out(formatStatus(status));
      return;
    default:
      throw new Error(USAGE);
  }
}

// `npm run stack -- status | head` closes our stdout early; that is not a failure.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
});

main(process.argv.slice(2)).catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`stack: ${message}\n`);
  process.exitCode = 1;
});
