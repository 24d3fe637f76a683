import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MongoClient } from 'mongodb';
import { externalUri } from './test-database';

const repoRoot = path.resolve(__dirname, '../../..');
const describeServer = externalUri ? describe.skip : describe;

interface RunningStore {
  child: ChildProcess;
  uri: string;
  output: () => string;
}

/** The store as the stack runs it: its CLI in a process of its own, on a data directory. */
function startStore(dataDir: string): Promise<RunningStore> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'tools/embedded-mongo/cli.ts', '--port', '0', '--data-dir', dataDir], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /embedded-mongo listening on (mongodb:\/\/[\d.]+:\d+)/.exec(output);
      if (match) resolve({ child, uri: match[1], output: () => output });
    });
    child.once('exit', (code) => reject(new Error(`the store exited with ${code}: ${output}`)));
  });
}

describeServer('embedded-mongo: kill -9 in the middle of a load', () => {
  const children: ChildProcess[] = [];
  let dir: string;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mts-kill-'));
  });

  afterAll(() => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('keeps every document acknowledged more than 100 ms before the kill, and the unique index holds', async () => {
    const first = await startStore(dir);
    children.push(first.child);
    const client = await MongoClient.connect(first.uri, { serverSelectionTimeoutMS: 5000 });
    const items = client.db('load').collection('items');
    await items.createIndex({ seq: 1 }, { unique: true });
    await items.createIndex({ tenant: 1, period: 1 });

    const total = 100_000;
    const batch = 500;
    const acknowledged: Array<{ at: number; upTo: number }> = [];
    let killedAt = 0;
    const exited = new Promise((resolve) => first.child.once('exit', resolve));
    try {
      for (let start = 0; start < total; start += batch) {
        const docs = Array.from({ length: batch }, (_, i) => ({
          seq: start + i,
          tenant: `t${(start + i) % 7}`,
          period: `2024-${(start + i) % 12}`,
        }));
        if (start === total / 2) {
          // Kill in the middle of the next batches, without waiting for them.
          setTimeout(() => {
            killedAt = performance.now();
            first.child.kill('SIGKILL');
          }, 250);
        }
        await items.insertMany(docs, { ordered: true });
        acknowledged.push({ at: performance.now(), upTo: start + batch });
      }
    } catch {
      // the connection dies with the store
    }
    await exited;
    await client.close(true).catch(() => undefined);
    expect(killedAt).toBeGreaterThan(0);
    // The kill came in the middle of the load.
    expect(acknowledged[acknowledged.length - 1].upTo).toBeLessThan(total);
    const safe = acknowledged.filter((ack) => ack.at < killedAt - 100);
    const mustHave = safe.length > 0 ? safe[safe.length - 1].upTo : 0;
    expect(mustHave).toBeGreaterThanOrEqual(total / 2);

    const second = await startStore(dir);
    children.push(second.child);
    const again = await MongoClient.connect(second.uri, { serverSelectionTimeoutMS: 5000 });
    try {
      const restored = again.db('load').collection('items');
      const present = await restored.countDocuments({ seq: { $lt: mustHave } });
      expect(present).toBe(mustHave);
      // Nothing half-written: documents are whole and each seq appears once.
      const all = await restored.countDocuments();
      expect((await restored.distinct('seq')).length).toBe(all);
      expect(await restored.countDocuments({ tenant: { $exists: false } })).toBe(0);
      await expect(restored.insertOne({ seq: 0 })).rejects.toMatchObject({ code: 11000, keyPattern: { seq: 1 } });
      const plan = await restored.find({ tenant: 't1', period: '2024-1' }).explain('executionStats');
      expect(plan.queryPlanner.winningPlan.inputStage.stage).toBe('IXSCAN');
      expect(second.output()).toMatch(/recovered [\d,]+ documents in 1 collections/);
    } finally {
      await again.close();
      second.child.kill('SIGTERM');
      await new Promise((resolve) => second.child.once('exit', resolve));
    }
  }, 120_000);
});
