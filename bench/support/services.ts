/**
 * Runs both services as real processes (built with `npm run build`) against the local stack, each
 * benchmark in a database of its own, and mints tokens with the local key.
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createReadStream, openSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { MongoClient } from 'mongodb';
import { loadSigningKey, TokenIssuer } from '@lib/auth';
import { stackStatus, stackUp, withServiceNatsUser } from '../../tools/stack';

const root = join(__dirname, '..', '..');

export interface RunningServices {
  authzUrl: string;
  costassetUrl: string;
  costassetPid: number;
  /** Every costasset instance, the first one answering at `costassetUrl`. */
  costassetPids: number[];
  /** The embedded store's process (the stack's `mongo`), absent with an external MONGODB_URI. */
  storePid?: number;
  env: NodeJS.ProcessEnv;
  token(sub?: string, tenant?: string): Promise<string>;
  stop(): Promise<void>;
}

async function waitReady(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${url}/health/ready`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${url} did not become ready`);
}

function statusField(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(status);
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/** Peak resident set size of a process in MB (Linux `VmHWM`). */
export const peakRssMb = (pid: number): number => statusField(pid, 'VmHWM');

/** Resident set size of a process now, in MB (Linux `VmRSS`). */
export const rssMb = (pid: number): number => statusField(pid, 'VmRSS');

/** PUTs a file to a pre-signed URL, streamed from disk. */
export async function putFile(url: string, file: string): Promise<void> {
  const answer = await fetch(url, {
    method: 'PUT',
    body: Readable.toWeb(createReadStream(file)) as ReadableStream,
    headers: { 'content-length': String(statSync(file).size) },
    duplex: 'half',
  } as RequestInit);
  if (!answer.ok) throw new Error(`upload answered ${answer.status}`);
}

export interface FinishedJob<R> {
  status: 'succeeded' | 'completed_with_errors';
  result?: R;
}

/** Polls a job until it ends; a failed or terminated job throws. */
export async function waitForJob<R>(
  services: RunningServices,
  headers: Record<string, string>,
  jobId: string,
  intervalMs: number,
): Promise<FinishedJob<R>> {
  for (;;) {
    const job = (await (await fetch(`${services.costassetUrl}/api/costasset/v1/jobs/${jobId}`, { headers })).json()) as {
      status: string;
      error?: string;
      result?: R;
    };
    if (job.status === 'failed' || job.status === 'terminated') throw new Error(`the job ${job.status}: ${job.error}`);
    if (job.status === 'succeeded' || job.status === 'completed_with_errors') return job as FinishedJob<R>;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Stops the services and drops the benchmark's database. */
export async function stopAndDropDatabase(services: RunningServices): Promise<void> {
  await services.stop();
  const client = await MongoClient.connect(services.env.MONGODB_URI ?? '');
  await client.db().dropDatabase();
  await client.close();
}

/** `costassetInstances`: costasset processes sharing the database and the job queue (ports from BENCH_COSTASSET_PORT up). */
export async function startServices(name: string, extraEnv: NodeJS.ProcessEnv = {}, costassetInstances = 1): Promise<RunningServices> {
  const profile = process.env.STACK_PROFILE ?? 'dev';
  const stackEnv = await stackUp({ profile, log: () => undefined });
  const store = (await stackStatus({ profile })).find((component) => component.name === 'mongo');
  if (spawnSync('npm', ['run', '-s', 'build'], { cwd: root, stdio: 'inherit' }).status !== 0) throw new Error('build failed');
  const mongo = new URL(stackEnv.MONGODB_URI);
  const run = `bench_${name}_${Date.now()}`;
  mongo.pathname = `/${run}`;
  // BENCH_AUTHZ_PORT / BENCH_COSTASSET_PORT keep benchmarks of several checkouts on one machine apart
  const ports = { authz: Number(process.env.BENCH_AUTHZ_PORT ?? 3301), costasset: Number(process.env.BENCH_COSTASSET_PORT ?? 3302) };
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...stackEnv,
    MONGODB_URI: mongo.toString(),
    NATS_NAMESPACE: run,
    AUTHZ_PORT: String(ports.authz),
    COSTASSET_PORT: String(ports.costasset),
    AUTHZ_JWKS_URL: `http://127.0.0.1:${ports.authz}/core/authorization/v1/.well-known/jwks.json`,
    LOG_LEVEL: 'warn',
    ...extraEnv,
  };
  const authzUrl = `http://127.0.0.1:${ports.authz}`;
  const costassetUrl = `http://127.0.0.1:${ports.costasset}`;
  for (const url of [authzUrl, costassetUrl]) {
    const answered = await fetch(`${url}/health/live`).then(
      () => true,
      () => false,
    );
    if (answered) throw new Error(`${url} is already in use (a leftover benchmark service?); stop it first`);
  }
  // BENCH_NODE_ARGS: options for both services' node, e.g. `--prof` to see where their CPU goes, or
  // `--trace-gc` with BENCH_SERVICE_STDOUT=<prefix>: each service's output in <prefix>.<service>[-<instance>]
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const stdoutPrefix = process.env.BENCH_SERVICE_STDOUT;
  const serviceStdout = (name: string) => (stdoutPrefix ? openSync(`${stdoutPrefix}.${name}`, 'w') : 'ignore');
  const start = (service: 'authz' | 'costasset', overrides: NodeJS.ProcessEnv = {}): ChildProcess =>
    spawn(process.execPath, [...nodeArgs, join(root, `dist/apps/${service}/apps/${service}/src/main.js`)], {
      cwd: root,
      env: withServiceNatsUser({ ...env, ...overrides }, service),
      stdio: ['ignore', serviceStdout(`${service}${overrides.INSTANCE_ID ? `-${overrides.INSTANCE_ID}` : ''}`), 'inherit'],
    });
  const authz = start('authz');
  const instanceUrls = Array.from({ length: costassetInstances }, (_, index) => `http://127.0.0.1:${ports.costasset + index}`);
  const costassets = instanceUrls.map((_, index) =>
    start('costasset', { COSTASSET_PORT: String(ports.costasset + index), INSTANCE_ID: `bench-${index + 1}` }),
  );
  const costasset = costassets[0];
  // An interrupted benchmark must not leave its services behind.
  const killAll = () => [authz, ...costassets].forEach((child) => child.kill('SIGKILL'));
  process.once('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
  await Promise.all([waitReady(authzUrl), ...instanceUrls.map((url) => waitReady(url))]);
  const key = await loadSigningKey({ devKeysDir: join(root, '.dev-keys'), allowDevKey: true, privateKeyPem: env.JWT_PRIVATE_KEY });
  const issuer = new TokenIssuer(key, env.JWT_ISSUER ?? 'corelite-authz');
  return {
    authzUrl,
    costassetUrl,
    costassetPid: costasset.pid ?? 0,
    costassetPids: costassets.map((child) => child.pid ?? 0),
    storePid: store?.state === 'running' ? store.pid : undefined,
    env,
    token: async (sub = 'admin', tenant = 'default') =>
      (await issuer.issueAccess({ sub, tid: tenant, idp: 'idp-default', groups: [], authType: 'internal' }, 3600)).token,
    stop: async () => {
      for (const child of [...costassets, authz]) child.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 500));
    },
  };
}
