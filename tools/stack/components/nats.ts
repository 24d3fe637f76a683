import * as fs from 'node:fs';
import * as path from 'node:path';
import { writePid, spawnDetached } from '../process-control';
import { httpStatus } from '../readiness';
import { requireProgram } from '../system-packages';
import { LocalComponent, logFile, pidFile } from './local-component';

/** Debian's nats-server with JetStream; its store lives in `<dataDir>/nats` and survives restarts. */
export const natsComponent: LocalComponent = {
  name: 'nats',
  programs: [{ program: 'nats-server', aptPackage: 'nats-server' }],
  ports: (settings) => [settings.ports.nats, settings.ports.natsMonitor],
  commandMarker: 'nats-server',
  startTimeoutMs: 10_000,

  async isHealthy(settings) {
    return (await httpStatus(`http://127.0.0.1:${settings.ports.natsMonitor}/healthz`)) === 200;
  },

  async spawn({ settings }) {
    const storeDir = path.join(settings.dataDir, 'nats');
    fs.mkdirSync(storeDir, { recursive: true });
    const args = ['-a', '127.0.0.1', '-p', String(settings.ports.nats), '-m', String(settings.ports.natsMonitor), '-js', '-sd', storeDir];
    const pid = spawnDetached(requireProgram('nats-server'), args, logFile(settings, 'nats'), settings.dataDir);
    writePid(pidFile(settings, 'nats'), pid);
  },
};
