import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCommand } from './process-control';
import { RequiredProgram, StackError } from './types';

/** sbin directories are searched too: a non-root PATH often lacks them, yet slapd lives there. */
const EXTRA_DIRS = ['/usr/sbin', '/sbin', '/usr/local/sbin'];

export function findProgram(program: string, envPath = process.env.PATH ?? ''): string | undefined {
  const dirs = [...envPath.split(path.delimiter).filter(Boolean), ...EXTRA_DIRS];
  for (const dir of dirs) {
    const candidate = path.join(dir, program);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

export function requireProgram(program: string): string {
  const found = findProgram(program);
  if (!found) throw new StackError(`${program} is not installed`);
  return found;
}

/** The Debian packages to install so that every program in `required` is found. */
export function missingPackages(required: RequiredProgram[], isInstalled: (program: string) => boolean): string[] {
  const packages = required.filter((r) => !isInstalled(r.program)).map((r) => r.aptPackage);
  return [...new Set(packages)];
}

/** Answers given to debconf before installing, so that nothing asks a question. */
const DEBCONF_PRESEED = 'slapd slapd/no_configuration boolean true\n';

export async function ensureInstalled(required: RequiredProgram[], log: (line: string) => void): Promise<void> {
  const packages = missingPackages(required, (program) => findProgram(program) !== undefined);
  if (packages.length === 0) return;
  const command = `apt-get install -y ${packages.join(' ')}`;
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    throw new StackError(
      `missing ${packages.join(', ')}; install as root: ` +
        `echo '${DEBCONF_PRESEED.trim()}' | sudo debconf-set-selections && sudo DEBIAN_FRONTEND=noninteractive ${command}`,
    );
  }
  if (!findProgram('apt-get')) {
    throw new StackError(`missing ${packages.join(', ')} and no apt-get here; install them with your package manager`);
  }
  log(`stack: installing ${packages.join(' ')} (apt)`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if (findProgram('debconf-set-selections')) {
    await runCommand('debconf-set-selections', [], { input: DEBCONF_PRESEED, env });
  }
  const update = await runCommand('apt-get', ['update'], { env });
  if (update.code !== 0) throw new StackError(`apt-get update failed: ${lastLine(update.output)}`);
  const install = await runCommand('apt-get', ['install', '-y', ...packages], { env });
  if (install.code !== 0) throw new StackError(`${command} failed: ${lastLine(install.output)}`);
  const stillMissing = missingPackages(required, (program) => findProgram(program) !== undefined);
  if (stillMissing.length > 0) throw new StackError(`${stillMissing.join(', ')} still missing after ${command}`);
}

function lastLine(output: string): string {
  const lines = output.trim().split('\n');
  return lines[lines.length - 1] ?? '';
}
