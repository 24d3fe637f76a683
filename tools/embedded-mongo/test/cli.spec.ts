import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { MongoClient } from 'mongodb';

const repoRoot = path.resolve(__dirname, '../../..');
const tsxCli = require.resolve('tsx/cli', { paths: [repoRoot] });

function startCli(extra: string[] = []) {
  return spawn(process.execPath, [tsxCli, 'tools/embedded-mongo/cli.ts', '--host', '127.0.0.1', '--port', '0', ...extra], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

describe('embedded-mongo: cli', () => {
  it('prints one ready line, serves clients and exits cleanly on SIGTERM', async () => {
    const child = startCli();
    let output = '';
    const uri = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /^embedded-mongo listening on (mongodb:\/\/127\.0\.0\.1:\d+)\n/.exec(output);
        if (match) resolve(match[1]);
      });
      child.once('exit', (code) => reject(new Error(`cli exited early with ${code}: ${output}`)));
    });
    const client = await MongoClient.connect(uri, { serverSelectionTimeoutMS: 5000 });
    await client.db('cli').collection('c').insertOne({ a: 1 });
    expect(await client.db('cli').collection('c').countDocuments()).toBe(1);
    await client.close();

    const exitCode = await new Promise<number | null>((resolve) => {
      child.once('exit', (code) => resolve(code));
      child.kill('SIGTERM');
    });
    expect(exitCode).toBe(0);
    expect(output.trim().split('\n')).toHaveLength(1);
  }, 30_000);

  it('starts with notablescan set by --setParameter notablescan=true', async () => {
    const child = startCli(['--setParameter', 'notablescan=true']);
    const uri = await new Promise<string>((resolve, reject) => {
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /listening on (mongodb:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (match) resolve(match[1]);
      });
      child.once('exit', (code) => reject(new Error(`cli exited early with ${code}: ${output}`)));
    });
    const client = await MongoClient.connect(uri, { serverSelectionTimeoutMS: 5000 });
    try {
      expect(await client.db('admin').command({ getParameter: 1, notablescan: 1 })).toMatchObject({ notablescan: true });
      await client.db('cli').collection('c').insertOne({ a: 1 });
      await expect(client.db('cli').collection('c').findOne({ a: 1 })).rejects.toMatchObject({ code: 291 });
    } finally {
      await client.close();
      child.kill('SIGTERM');
    }
  }, 30_000);
});
