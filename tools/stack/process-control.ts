import { spawn } from 'node:child_process';
import * as fs from 'node:fs';

export function readPid(pidFile: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

export function writePid(pidFile: string, pid: number): void {
  fs.writeFileSync(pidFile, `${pid}\n`);
}

export function removeFile(file: string): void {
  fs.rmSync(file, { force: true });
}

/**
 * Whether `pid` is a live process (not a zombie). When `commandMarker` is given and /proc is
 * readable, the command line must also contain it, so a pid recycled by some other program
 * does not count as ours.
 */
export function isProcessAlive(pid: number, commandMarker?: string): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    if (/\) Z /.test(stat)) return false;
    if (commandMarker) {
      const commandLine = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      return commandLine.includes(commandMarker);
    }
  } catch {
    // no /proc (macOS): trust kill(pid, 0)
  }
  return true;
}

/** The pid from `pidFile` when that process is alive; removes a stale pid file. */
export function livePid(pidFile: string, commandMarker?: string): number | undefined {
  const pid = readPid(pidFile);
  if (pid === undefined) return undefined;
  if (isProcessAlive(pid, commandMarker)) return pid;
  removeFile(pidFile);
  return undefined;
}

/** Starts a process in its own process group, output appended to `logFile`, and lets it outlive us. */
export function spawnDetached(command: string, args: string[], logFile: string, cwd: string, env: NodeJS.ProcessEnv = process.env): number {
  const logFd = fs.openSync(logFile, 'a');
  try {
    const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', logFd, logFd] });
    if (child.pid === undefined) throw new Error(`could not start ${command}`);
    child.on('error', () => undefined);
    child.unref();
    return child.pid;
  } finally {
    fs.closeSync(logFd);
  }
}

/** Runs a command to completion; resolves with its exit code and output. */
export function runCommand(
  command: string,
  args: string[],
  options: { input?: string; env?: NodeJS.ProcessEnv; logFile?: string; cwd?: string } = {},
): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const logFd = options.logFile ? fs.openSync(options.logFile, 'a') : undefined;
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['pipe', logFd ?? 'pipe', logFd ?? 'pipe'],
    });
    if (logFd !== undefined) fs.closeSync(logFd);
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
    // a program that exits without reading its input (nginx -V) closes the pipe: not an error
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(options.input ?? '');
  });
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pid, sig); // the whole process group (we start servers as group leaders)
  } catch {
    try {
      process.kill(pid, sig);
    } catch {
      // already gone
    }
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** SIGTERM, wait up to `graceMs`, then SIGKILL. Resolves once the process is gone. */
export async function stopProcess(pid: number, graceMs = 5000): Promise<'terminated' | 'killed'> {
  signal(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!isProcessAlive(pid)) return 'terminated';
    await sleep(25);
  }
  signal(pid, 'SIGKILL');
  for (let i = 0; i < 40 && isProcessAlive(pid); i++) await sleep(25);
  return 'killed';
}
