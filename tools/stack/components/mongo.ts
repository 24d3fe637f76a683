import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnDetached, writePid } from '../process-control';
import { tcpAccepts } from '../readiness';
import { StackError } from '../types';
import { LocalComponent, logFile, pidFile } from './local-component';

export const EMBEDDED_MONGO_CLI = path.join('tools', 'embedded-mongo', 'cli.ts');

/**
 * V8 options of the store process. Everything lives in its heap: room for benchmark-sized data
 * sets. Young semi-spaces of 64 MiB (V8's default is 16): the buffers of an insert batch (the
 * message, the socket's chunks: ~10 MB for 10,000 line items) then die young instead of being
 * promoted, and buffers promoted count as external memory until a full collection, of which V8
 * starts one for every 64 MiB of them (tracing the whole heap). At 1,000,000 line items this
 * took the store's CPU per inserted row from ~19 to ~12 µs (docs/benchmarks.md, Store).
 */
export function mongoNodeOptions(): string[] {
  return [`--max-old-space-size=${process.env.STACK_MONGO_HEAP_MB ?? '8192'}`, '--max-semi-space-size=64'];
}

/**
 * The project's MongoDB wire-compatible store, run with tsx's loader in one node process, its
 * data kept durable in `<dataDir>/mongo` (journal + checkpoints, recovered at start).
 */
export const mongoComponent: LocalComponent = {
  name: 'mongo',
  programs: [],
  ports: (settings) => [settings.ports.mongo],
  commandMarker: 'embedded-mongo',
  // Recovering millions of documents takes a while (about 10 s a million); a crash is seen at once.
  startTimeoutMs: 600_000,

  isHealthy: (settings) => tcpAccepts(settings.ports.mongo),

  async spawn({ settings }) {
    if (!fs.existsSync(path.join(settings.repoRoot, EMBEDDED_MONGO_CLI))) {
      throw new StackError(`mongo: ${EMBEDDED_MONGO_CLI} is missing; set MONGODB_URI to use a real MongoDB instead`);
    }
    const dataDir = path.join(settings.dataDir, 'mongo');
    const args = [
      ...mongoNodeOptions(),
      '--import',
      'tsx',
      EMBEDDED_MONGO_CLI,
      '--host',
      '127.0.0.1',
      '--port',
      String(settings.ports.mongo),
      '--data-dir',
      dataDir,
    ];
    const pid = spawnDetached(process.execPath, args, logFile(settings, 'mongo'), settings.repoRoot);
    writePid(pidFile(settings, 'mongo'), pid);
  },
};
