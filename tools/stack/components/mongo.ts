import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnDetached, writePid } from '../process-control';
import { tcpAccepts } from '../readiness';
import { StackError } from '../types';
import { LocalComponent, logFile, nodeBin, pidFile } from './local-component';

export const MONGO_TEST_SERVER_CLI = path.join('tools', 'mongo-test-server', 'cli.ts');

/** The project's MongoDB wire-compatible test server (in memory), run through tsx. */
export const mongoComponent: LocalComponent = {
  name: 'mongo',
  programs: [],
  ports: (settings) => [settings.ports.mongo],
  commandMarker: 'mongo-test-server',
  startTimeoutMs: 30_000,

  isHealthy: (settings) => tcpAccepts(settings.ports.mongo),

  async spawn({ settings }) {
    if (!fs.existsSync(path.join(settings.repoRoot, MONGO_TEST_SERVER_CLI))) {
      throw new StackError(`mongo: ${MONGO_TEST_SERVER_CLI} is missing; set MONGODB_URI to use a real MongoDB instead`);
    }
    const args = [nodeBin(settings, 'tsx'), MONGO_TEST_SERVER_CLI, '--host', '127.0.0.1', '--port', String(settings.ports.mongo)];
    // Everything lives in the server's heap: room for benchmark-sized data sets. NODE_OPTIONS,
    // because tsx runs the script in a child process of its own.
    const heap = `--max-old-space-size=${process.env.STACK_MONGO_HEAP_MB ?? '8192'}`;
    const env = { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} ${heap}`.trim() };
    const pid = spawnDetached(process.execPath, args, logFile(settings, 'mongo'), settings.repoRoot, env);
    writePid(pidFile(settings, 'mongo'), pid);
  },
};
