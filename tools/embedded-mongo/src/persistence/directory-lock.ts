import * as fs from 'node:fs';
import * as path from 'node:path';

const LOCK_FILE = 'mongod.lock';
/** Directories opened by this process (the lock file names the process, not the server). */
const openInThisProcess = new Set<string>();
/** SIGKILL's bit in the pending-signal masks of /proc/<pid>/status. */
const SIGKILL_BIT = 1n << 8n;

/** When the process started, in clock ticks since boot (/proc/<pid>/stat field 22); null without /proc. */
function startTicks(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/**
 * Whether `pid` is still the process that wrote the lock: it exists, is not a zombie nor being
 * killed (a process killed with -9 can take a while to release gigabytes of memory, and one whose
 * parent does not reap it stays a zombie), and has the start time the lock recorded (otherwise the
 * pid now belongs to another process).
 */
function holdsLock(pid: number, recordedStart: string | undefined): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  let status: string;
  try {
    status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return true; // no /proc: the signal test is all there is
  }
  if (/^State:\s+[ZX]/m.test(status)) return false;
  for (const match of status.matchAll(/^(?:SigPnd|ShdPnd):\s+([0-9a-f]+)$/gm)) {
    if (BigInt(`0x${match[1]}`) & SIGKILL_BIT) return false;
  }
  return recordedStart === undefined || startTicks(pid) === recordedStart;
}

/**
 * `mongod.lock` of a data directory: one server per directory. The file holds the pid of the
 * server's process and, where /proc exists, its start time. A lock left by a process that is gone
 * (killed, crashed) is taken over at once, with a line saying so; a live holder is refused.
 */
export class DirectoryLock {
  private readonly file: string;
  private readonly key: string;

  constructor(dir: string) {
    this.file = path.join(dir, LOCK_FILE);
    this.key = path.resolve(dir);
  }

  acquire(dir: string, log: (line: string) => void): void {
    if (openInThisProcess.has(this.key)) throw new Error(`the data directory ${dir} is in use by process ${process.pid}`);
    const [pidLine, startLine] = fs.existsSync(this.file) ? fs.readFileSync(this.file, 'utf8').split('\n') : [];
    const holder = Number(pidLine);
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid) {
      if (holdsLock(holder, startLine || undefined)) throw new Error(`the data directory ${dir} is in use by process ${holder}`);
      log(`embedded-mongo: took over the lock of process ${holder} on ${dir}, which is no longer running`);
    }
    const start = startTicks(process.pid);
    fs.writeFileSync(this.file, `${process.pid}\n${start ?? ''}\n`);
    openInThisProcess.add(this.key);
  }

  release(): void {
    fs.rmSync(this.file, { force: true });
    openInThisProcess.delete(this.key);
  }
}
