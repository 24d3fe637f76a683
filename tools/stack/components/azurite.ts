import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnDetached, writePid } from '../process-control';
import { httpStatus } from '../readiness';
import { LocalComponent, logFile, nodeBin, pidFile } from './local-component';

/**
 * azurite's Blob service from node_modules (Microsoft's Azure Storage emulator), for the Azure
 * side of the data connections. Its account is the emulator's published development account
 * (`AZURITE_ACCOUNT` in settings.ts); blobs and their metadata live in `<dataDir>/azurite`.
 * Any API version the SDK sends is taken (`--skipApiVersionCheck`), unsupported headers are ignored
 * (`--loose`), and it sends no telemetry (`--disableTelemetry`: by default azurite reports usage to
 * Microsoft).
 */
export const azuriteComponent: LocalComponent = {
  name: 'azurite',
  programs: [],
  ports: (settings) => [settings.ports.azurite],
  commandMarker: 'azurite-blob',
  startTimeoutMs: 20_000,

  // any HTTP answer from the account URL (it answers 400 to a GET without a query) means it serves
  async isHealthy(settings) {
    return (await httpStatus(settings.localUrls.azurite)) !== undefined;
  },

  async spawn({ settings }) {
    const location = path.join(settings.dataDir, 'azurite');
    fs.mkdirSync(location, { recursive: true });
    const args = [
      nodeBin(settings, 'azurite-blob'),
      '--blobHost',
      '127.0.0.1',
      '--blobPort',
      String(settings.ports.azurite),
      '--location',
      location,
      '--skipApiVersionCheck',
      '--loose',
      '--silent',
      '--disableTelemetry',
    ];
    const pid = spawnDetached(process.execPath, args, logFile(settings, 'azurite'), settings.dataDir);
    writePid(pidFile(settings, 'azurite'), pid);
  },
};
