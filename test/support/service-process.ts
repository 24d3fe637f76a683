import { ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { withServiceNatsUser } from '../../tools/stack';
import { eventually } from './platform';

const root = join(__dirname, '..', '..');

export interface ServiceProcess {
  service: 'authz' | 'costasset';
  instance: string;
  url: string;
  child: ChildProcess;
  /** Its JSON log lines so far (LOG_LEVEL info). */
  logs: Record<string, unknown>[];
  /** SIGKILL (no shutdown hook, no acknowledgement) and wait for the exit. */
  kill(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return (await freePorts(1))[0];
}

/** `count` distinct free ports: each is held until all are chosen, so none is handed out twice. */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve) => {
          const server = createServer().listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => (server.address() as { port: number }).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

/**
 * A service as a real process, from its sources (`main.ts`, as `npm start` runs the build), for tests
 * that kill it or run several instances; it logs at `info` (its lines are kept in `logs`); resolves
 * once `/health/ready` answers 200.
 */
export async function startServiceProcess(
  service: 'authz' | 'costasset',
  env: NodeJS.ProcessEnv,
  instance: string,
  port?: number,
): Promise<ServiceProcess> {
  const listen = port ?? (await freePort());
  const portVariable = service === 'authz' ? 'AUTHZ_PORT' : 'COSTASSET_PORT';
  const child = spawn(process.execPath, ['-r', join(root, 'test/support/swc-register.js'), join(root, `apps/${service}/src/main.ts`)], {
    cwd: root,
    env: { ...withServiceNatsUser(env, service), LOG_LEVEL: 'info', [portVariable]: String(listen), INSTANCE_ID: instance },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const logs: Record<string, unknown>[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (line.startsWith('{')) logs.push(JSON.parse(line) as Record<string, unknown>);
  });
  let exited = false;
  child.once('exit', () => (exited = true));
  const url = `http://127.0.0.1:${listen}`;
  await eventually(
    async () => {
      if (exited) throw new Error(`${instance} exited while starting`);
      expect((await fetch(`${url}/health/ready`)).status).toBe(200);
    },
    90_000,
    250,
  );
  return {
    service,
    instance,
    url,
    child,
    logs,
    kill: async () => {
      if (exited) return;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await gone;
    },
  };
}
