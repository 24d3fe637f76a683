import * as fs from 'node:fs';
import { spawn } from 'node:child_process';
import * as net from 'node:net';
import * as path from 'node:path';
import { isProcessAlive, livePid, readPid, removeFile, runCommand, stopProcess } from '../process-control';
import { httpStatus, portIsFree, waitUntil } from '../readiness';
import { REPO_ROOT } from '../settings';
import { ensureInstalled, requireProgram } from '../system-packages';
import { RequiredProgram, StackError } from '../types';
import type { AdmissionBounds } from '@lib/config';
import { GatewayUpstreams, renderGatewayConfig, tempPathModulesOf, traceSampledPercentOf } from './gateway-config';

/** Debian's smallest nginx build; it has every module the routing table uses. */
export const GATEWAY_PROGRAMS: RequiredProgram[] = [{ program: 'nginx', aptPackage: 'nginx-light' }];

export interface GatewayOptions {
  /** Address to listen on (default 127.0.0.1). */
  host?: string;
  /** Port to listen on; 0 picks a free one. */
  port: number;
  upstreams: GatewayUpstreams;
  /**
   * The services' HTTP_MAX_IN_FLIGHT and HTTP_MAX_HEAVY_IN_FLIGHT (`admissionBoundsOf` of their environment): requests passed to
   * one instance at once.
   */
  admission: AdmissionBounds;
  /** Holds nginx.conf, the pid file and nginx's temporary files (e.g. `.stack/dev/gateway`). */
  runDir: string;
  /** Where `gateway-error.log` (and `gateway-access.log`) go; `runDir` by default. */
  logDir?: string;
  /** Log every request to `gateway-access.log` (off by default). */
  accessLog?: boolean;
  repoRoot?: string;
  /** The object store the console uploads to (S3_ENDPOINT): its origin joins the console's `connect-src`. */
  objectStoreUrl?: string;
  /** The share (0–100) of the traces it starts that are marked sampled; by default as this process's `OTEL_TRACES_SAMPLER` says. */
  traceSampledPercent?: number;
  /** `host:port` of the local OTLP receiver (`npm start -- --traces`): proxied at `/local-traces/` for the console. */
  tracesUpstream?: string;
  log?: (line: string) => void;
}

export interface RunningGateway {
  /** The base URL clients use, e.g. http://127.0.0.1:8080. */
  url: string;
  port: number;
  pid: number;
  configFile: string;
  errorLog: string;
  accessLog?: string;
  stop(): Promise<void>;
}

/** The file that names the process a gateway belongs to (tests sweep gateways of dead processes). */
const OWNER_FILE = 'owner.pid';
const START_TIMEOUT_MS = 10_000;

let nginxBuild: Promise<string> | undefined;

/** `nginx -V` (its configure arguments say which modules keep temporary paths). */
function nginxVersionOutput(nginx: string): Promise<string> {
  nginxBuild ??= runCommand(nginx, ['-V']).then((result) => result.output);
  return nginxBuild;
}

/** Where clients reach a server listening on `host`. */
export function reachableHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen({ port: 0, host }, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Writes the configuration `options` describe and checks it with `nginx -t`; resolves with nginx's output. */
export async function checkGatewayConfig(options: GatewayOptions): Promise<{ ok: boolean; output: string; configFile: string }> {
  await ensureInstalled(GATEWAY_PROGRAMS, options.log ?? (() => undefined));
  const { nginx, configFile, args } = await writeConfig({ ...options, port: options.port || 1 });
  const result = await runCommand(nginx, ['-t', ...args]);
  return { ok: result.code === 0, output: result.output, configFile };
}

async function writeConfig(options: GatewayOptions & { port: number }) {
  const repoRoot = options.repoRoot ?? REPO_ROOT;
  const nginx = requireProgram('nginx');
  const logDir = options.logDir ?? options.runDir;
  fs.mkdirSync(options.runDir, { recursive: true });
  fs.mkdirSync(logDir, { recursive: true });
  const errorLog = path.join(logDir, 'gateway-error.log');
  const accessLog = options.accessLog ? path.join(logDir, 'gateway-access.log') : undefined;
  const configFile = path.join(options.runDir, 'nginx.conf');
  const config = renderGatewayConfig({
    host: options.host ?? '127.0.0.1',
    port: options.port,
    upstreams: options.upstreams,
    admission: options.admission,
    repoRoot,
    runDir: options.runDir,
    objectStoreUrl: options.objectStoreUrl,
    tracesUpstream: options.tracesUpstream,
    traceSampledPercent: options.traceSampledPercent ?? traceSampledPercentOf(process.env),
    errorLog,
    accessLog,
    tempPathModules: tempPathModulesOf(await nginxVersionOutput(nginx)),
    mimeTypesFile: fs.existsSync('/etc/nginx/mime.types') ? '/etc/nginx/mime.types' : undefined,
    // Workers of a root master would run as `nobody`, who may not read a repository under /root.
    workerUser: process.getuid?.() === 0 ? 'root' : undefined,
  });
  fs.writeFileSync(configFile, config);
  // -p: relative paths of the routing table resolve against the repository; -e: start-up errors too.
  const args = ['-p', `${repoRoot}${path.sep}`, '-c', configFile, '-e', errorLog];
  return { nginx, configFile, errorLog, accessLog, args };
}

/** Stops the gateway whose pid file is in `runDir`, if it is still running. */
export async function stopGateway(runDir: string): Promise<boolean> {
  const pidFile = path.join(runDir, 'nginx.pid');
  const pid = livePid(pidFile, 'nginx');
  if (pid === undefined) return false;
  await stopProcess(pid);
  removeFile(pidFile);
  return true;
}

/**
 * Starts nginx as the API gateway (installing Debian's nginx first when it is missing), waits until
 * it answers, and returns how to reach and stop it. nginx runs in the foreground as a child of this
 * process: it stops with it on Ctrl-C. A gateway left over in `runDir` by a killed run is stopped first.
 */
export async function startGateway(options: GatewayOptions): Promise<RunningGateway> {
  const log = options.log ?? (() => undefined);
  await ensureInstalled(GATEWAY_PROGRAMS, log);
  await stopGateway(options.runDir);
  const host = options.host ?? '127.0.0.1';
  const attempts = options.port === 0 ? 3 : 1;
  for (let attempt = 1; ; attempt++) {
    const port = options.port || (await freePort(host === '0.0.0.0' ? '127.0.0.1' : host));
    if (options.port !== 0 && !(await portIsFree(port, host === '0.0.0.0' ? '0.0.0.0' : host))) {
      throw new StackError(`gateway: port ${port} is busy (another process listens on it; choose another with GATEWAY_PORT)`);
    }
    try {
      return await launch({ ...options, host, port });
    } catch (error) {
      // a free port picked by us may be taken before nginx binds it: try another one
      if (attempt >= attempts) throw error;
    }
  }
}

async function launch(options: GatewayOptions & { host: string; port: number }): Promise<RunningGateway> {
  const { nginx, configFile, errorLog, accessLog, args } = await writeConfig(options);
  fs.writeFileSync(path.join(options.runDir, OWNER_FILE), `${process.pid}\n`);
  const errorFd = fs.openSync(errorLog, 'a');
  let child;
  try {
    child = spawn(nginx, args, { cwd: options.runDir, stdio: ['ignore', 'ignore', errorFd] });
  } finally {
    fs.closeSync(errorFd);
  }
  child.on('error', () => undefined);
  child.unref();
  const pid = child.pid;
  if (pid === undefined) throw new StackError('gateway: nginx could not be started');
  let exited = false;
  child.once('exit', () => (exited = true));
  const url = `http://${reachableHost(options.host)}:${options.port}`;
  try {
    await waitUntil(async () => (await httpStatus(`${url}/health`)) === 200, {
      what: 'gateway (nginx)',
      timeoutMs: START_TIMEOUT_MS,
      stillAlive: () => !exited && isProcessAlive(pid),
      logFile: errorLog,
    });
  } catch (error) {
    await stopProcess(pid, 1000);
    throw error;
  }
  return {
    url,
    port: options.port,
    pid,
    configFile,
    errorLog,
    accessLog,
    stop: async () => {
      if (!exited) await stopProcess(pid);
      removeFile(path.join(options.runDir, 'nginx.pid'));
    },
  };
}

/**
 * Stops the gateways under `parentDir` (one folder each) whose owning process is gone (or is
 * `finishedOwner`, a process that is done with them), and removes their folders: e2e runs killed
 * before they could stop their gateways leave nothing running.
 */
export async function sweepOrphanGateways(parentDir: string, finishedOwner?: number): Promise<void> {
  let entries: string[];
  try {
    entries = fs.readdirSync(parentDir);
  } catch {
    return;
  }
  for (const entry of entries) {
    const runDir = path.join(parentDir, entry);
    const owner = readPid(path.join(runDir, OWNER_FILE));
    if (owner !== undefined && owner !== finishedOwner && isProcessAlive(owner)) continue;
    await stopGateway(runDir);
    fs.rmSync(runDir, { recursive: true, force: true });
  }
}
