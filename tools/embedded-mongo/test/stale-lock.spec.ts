import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MongoClient } from 'mongodb';
import { externalUri } from './test-database';

const repoRoot = path.resolve(__dirname, '../../..');
const hasProc = fs.existsSync('/proc/self/stat');
const describeServer = externalUri ? describe.skip : describe;

interface Started {
  child: ChildProcess;
  /** Resolves with the uri once listening, rejects with the output if the process exits first. */
  ready: Promise<string>;
  output: () => string;
}

function startCli(dataDir: string): Started {
  const child = spawn(process.execPath, ['--import', 'tsx', 'tools/embedded-mongo/cli.ts', '--port', '0', '--data-dir', dataDir], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /embedded-mongo listening on (mongodb:\/\/[\d.]+:\d+)/.exec(output);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`the store exited with ${code}: ${output}`)));
  });
  return { child, ready, output: () => output };
}

/** The start time /proc gives a process (what the lock records beside the pid). */
function startTicks(pid: number): string {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
}

describeServer('embedded-mongo: the lock of a data directory', () => {
  const children: ChildProcess[] = [];
  const dirs: string[] = [];
  const newDir = (): string => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mts-lock-'));
    dirs.push(dir);
    return dir;
  };
  const track = (started: Started): Started => {
    children.push(started.child);
    return started;
  };

  afterAll(() => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is taken over at once from a store killed with -9, with a line saying so, and the data is there', async () => {
    const dir = newDir();
    const first = track(startCli(dir));
    const client = await MongoClient.connect(await first.ready, { serverSelectionTimeoutMS: 5000 });
    await client
      .db('lock')
      .collection('items')
      .insertOne({ _id: 1, name: 'kept' } as never);
    await client.close();
    const pid = first.child.pid as number;
    first.child.kill('SIGKILL');
    // Started again without waiting for the killed process to be gone.
    const second = track(startCli(dir));
    const uri = await second.ready;
    expect(second.output()).toContain(`took over the lock of process ${pid}`);
    expect(second.output()).toContain('which is no longer running');
    const again = await MongoClient.connect(uri, { serverSelectionTimeoutMS: 5000 });
    try {
      expect(
        await again
          .db('lock')
          .collection('items')
          .findOne({ _id: 1 } as never),
      ).toEqual({ _id: 1, name: 'kept' });
    } finally {
      await again.close();
      second.child.kill('SIGTERM');
    }
  }, 60_000);

  (hasProc ? it : it.skip)(
    'is taken over from a zombie, and from a pid now used by another process',
    async () => {
      // A shell that becomes `sleep 30` after starting a short child: nothing reaps that child, a zombie once it ends.
      const parent = spawn('sh', ['-c', 'sleep 0.1 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
      children.push(parent);
      const zombie = await new Promise<number>((resolve) =>
        parent.stdout?.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))),
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(fs.readFileSync(`/proc/${zombie}/stat`, 'utf8')).toMatch(/\) Z /);
      const other = spawn('sleep', ['30'], { stdio: 'ignore' });
      children.push(other);
      const cases: Array<[number, string]> = [
        [zombie, ''],
        [other.pid as number, `${Number(startTicks(other.pid as number)) + 1}`],
      ];
      for (const [pid, start] of cases) {
        const dir = newDir();
        fs.writeFileSync(path.join(dir, 'mongod.lock'), `${pid}\n${start}\n`);
        const started = track(startCli(dir));
        await started.ready;
        expect(started.output()).toContain(`took over the lock of process ${pid}`);
        started.child.kill('SIGTERM');
      }
    },
    60_000,
  );

  (hasProc ? it : it.skip)(
    'is refused while the process that took it runs',
    async () => {
      const holder = spawn('sleep', ['30'], { stdio: 'ignore' });
      children.push(holder);
      const dir = newDir();
      fs.writeFileSync(path.join(dir, 'mongod.lock'), `${holder.pid}\n${startTicks(holder.pid as number)}\n`);
      const started = track(startCli(dir));
      await expect(started.ready).rejects.toThrow(`the data directory ${dir} is in use by process ${holder.pid}`);
    },
    60_000,
  );
});
