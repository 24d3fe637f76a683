import * as fs from 'node:fs';
import * as path from 'node:path';
import { isProcessAlive, livePid, removeFile, spawnDetached, stopProcess, writePid } from '../process-control';
import { httpStatus, waitUntil } from '../readiness';
import { localNatsPasswords, renderNatsAuthorization, SERVICE_NATS_USERS, TOOLS_NATS_USER } from '../nats-users';
import { StackSettings } from '../settings';
import { requireProgram } from '../system-packages';
import { StackError } from '../types';
import { LocalComponent, logFile, pidFile } from './local-component';

const COMMAND_MARKER = 'nats-server';

export const natsConfigFile = (settings: Pick<StackSettings, 'dataDir'>) => path.join(settings.dataDir, 'nats.conf');

/** Writes the server's users (each service's, and the tools user of the tests); whether the file changed. */
function writeNatsConfig(settings: StackSettings): boolean {
  const passwords = localNatsPasswords(settings.dataDir);
  const content = [
    `# Written by tools/stack on every start of nats (profile ${settings.profile}); the users' passwords are in keys/.`,
    renderNatsAuthorization([...SERVICE_NATS_USERS, TOOLS_NATS_USER], (user) => JSON.stringify(passwords[user])),
  ].join('\n');
  const file = natsConfigFile(settings);
  if (fs.existsSync(file) && fs.readFileSync(file, 'utf8') === content) return false;
  fs.writeFileSync(file, content, { mode: 0o600 });
  return true;
}

async function requiresAuthorization(settings: StackSettings): Promise<boolean> {
  try {
    const response = await fetch(`http://127.0.0.1:${settings.ports.natsMonitor}/varz`, { signal: AbortSignal.timeout(1000) });
    return ((await response.json()) as { auth_required?: boolean }).auth_required === true;
  } catch {
    return false;
  }
}

/**
 * Debian's nats-server with JetStream; its store lives in `<dataDir>/nats` and survives restarts.
 * Every client needs a user (`nats.conf`): authz alone may answer the requests it serves.
 */
export const natsComponent: LocalComponent = {
  name: 'nats',
  programs: [{ program: 'nats-server', aptPackage: 'nats-server' }],
  ports: (settings) => [settings.ports.nats, settings.ports.natsMonitor],
  commandMarker: COMMAND_MARKER,
  startTimeoutMs: 10_000,

  async isHealthy(settings) {
    return (await httpStatus(`http://127.0.0.1:${settings.ports.natsMonitor}/healthz`)) === 200;
  },

  async spawn({ settings }) {
    const storeDir = path.join(settings.dataDir, 'nats');
    fs.mkdirSync(storeDir, { recursive: true });
    writeNatsConfig(settings);
    const args = [
      '-c',
      natsConfigFile(settings),
      '-a',
      '127.0.0.1',
      '-p',
      String(settings.ports.nats),
      '-m',
      String(settings.ports.natsMonitor),
      '-js',
      '-sd',
      storeDir,
    ];
    const pid = spawnDetached(requireProgram('nats-server'), args, logFile(settings, 'nats'), settings.dataDir);
    writePid(pidFile(settings, 'nats'), pid);
  },

  /**
   * A server already running reloads changed users (SIGHUP); one started without users (by an
   * older stack) is restarted with them, on the same port and store.
   */
  async prepare(context) {
    const { settings, log } = context;
    const pid = livePid(pidFile(settings, 'nats'), COMMAND_MARKER);
    if (writeNatsConfig(settings) && pid !== undefined) process.kill(pid, 'SIGHUP');
    if (await waitForAuthorization(settings, 3000)) return;
    if (pid !== undefined) {
      log(`stack: nats (pid ${pid}) ran without users; restarting it with them`);
      await stopProcess(pid);
      removeFile(pidFile(settings, 'nats'));
      await this.spawn(context);
      const restarted = livePid(pidFile(settings, 'nats'));
      await waitUntil(() => this.isHealthy(settings), {
        what: 'nats',
        timeoutMs: this.startTimeoutMs,
        stillAlive: () => restarted !== undefined && isProcessAlive(restarted),
        logFile: logFile(settings, 'nats'),
      });
      if (await waitForAuthorization(settings, 3000)) return;
    }
    throw new StackError(
      `nats on port ${settings.ports.nats} runs without users; ` +
        `stop it ('STACK_PROFILE=${settings.profile} npm run stack -- down nats') and start it again`,
    );
  },
};

async function waitForAuthorization(settings: StackSettings, timeoutMs: number): Promise<boolean> {
  return waitUntil(() => requiresAuthorization(settings), { what: 'nats with users', timeoutMs }).then(
    () => true,
    () => false,
  );
}
