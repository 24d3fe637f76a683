import { spawn, type ChildProcess } from 'node:child_process';
import * as net from 'node:net';
import * as path from 'node:path';

const root = path.join(__dirname, '..', '..');

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * An embedded store process of the test's own on `dataDir`, for tests that stop or kill the store
 * under running services, whatever MONGODB_URI the suite uses.
 */
export function startStore(port: number, dataDir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'tools/embedded-mongo/cli.ts', '--port', String(port), '--data-dir', dataDir], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('listening on')) resolve(child);
    });
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`the store exited with ${code}: ${output}`)));
  });
}

/** Stops the store with `signal` and waits for its exit. */
export async function stopStore(store: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (store.exitCode !== null || store.signalCode !== null) return;
  const exited = new Promise((resolve) => store.once('exit', resolve));
  store.kill(signal);
  await exited;
}
