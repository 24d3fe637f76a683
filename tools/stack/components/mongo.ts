import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnDetached, writePid } from '../process-control';
import { tcpAccepts } from '../readiness';
import { StackError } from '../types';
import { LocalComponent, logFile, pidFile } from './local-component';

export const EMBEDDED_MONGO_CLI = path.join('tools', 'embedded-mongo', 'cli.ts');

/**
 * V8 options of the store process. Room for benchmark-sized data sets in its heap. Young
 * semi-spaces of 16 MiB (V8's default): the stored documents are compact records in slabs outside
 * the heap (tools/embedded-mongo/README.md), so a full collection has little to trace and the
 * larger young generation of 64 MiB semi-spaces the store had before bought no CPU any more
 * (62 against 70 µs per FOCUS line item inserted) but kept ~130 MB resident for good after the
 * first large load (npm run bench:store-memory).
 */
export function mongoNodeOptions(): string[] {
  return [`--max-old-space-size=${process.env.STACK_MONGO_HEAP_MB ?? '8192'}`, '--max-semi-space-size=16'];
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
