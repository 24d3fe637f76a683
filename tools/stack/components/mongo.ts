import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnDetached, writePid } from '../process-control';
import { tcpAccepts } from '../readiness';
import { StackError } from '../types';
import { LocalComponent, logFile, pidFile } from './local-component';

export const MONGO_TEST_SERVER_CLI = path.join('tools', 'mongo-test-server', 'cli.ts');

/**
 * The project's MongoDB wire-compatible store, run with tsx's loader in one node process, its
 * data kept durable in `<dataDir>/mongo` (journal + checkpoints, recovered at start).
 */
export const mongoComponent: LocalComponent = {
  name: 'mongo',
  programs: [],
  ports: (settings) => [settings.ports.mongo],
  commandMarker: 'mongo-test-server',
  // Recovering millions of documents takes a while (about 10 s a million); a crash is seen at once.
  startTimeoutMs: 600_000,

  isHealthy: (settings) => tcpAccepts(settings.ports.mongo),

  async spawn({ settings }) {
    if (!fs.existsSync(path.join(settings.repoRoot, MONGO_TEST_SERVER_CLI))) {
      throw new StackError(`mongo: ${MONGO_TEST_SERVER_CLI} is missing; set MONGODB_URI to use a real MongoDB instead`);
    }
    // Everything lives in the server's heap: room for benchmark-sized data sets.
    const heap = `--max-old-space-size=${process.env.STACK_MONGO_HEAP_MB ?? '8192'}`;
    const dataDir = path.join(settings.dataDir, 'mongo');
    const args = [heap, '--import', 'tsx', MONGO_TEST_SERVER_CLI, '--host', '127.0.0.1', '--port', String(settings.ports.mongo), '--data-dir', dataDir];
    const pid = spawnDetached(process.execPath, args, logFile(settings, 'mongo'), settings.repoRoot);
    writePid(pidFile(settings, 'mongo'), pid);
  },
};
