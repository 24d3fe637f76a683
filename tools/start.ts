/**
 * `npm start`: everything a new user needs on one machine. Starts the local stack (profile dev,
 * installing its Debian packages when missing), builds both services, starts them and the API
 * gateway (nginx) in front of them, waits until all answer, and prints one base URL. The terminal
 * shows warnings and errors; the full logs go to `.stack/dev/logs/` (`npm start -- --verbose` or
 * LOG_LEVEL bring them back to the terminal). Ctrl-C stops the services and the gateway; the
 * stack keeps running (`npm run stack -- down` stops it). The first start loads a small demo data
 * set into the `default` tenant (skip with DEMO_DATA=false). `npm start -- --traces` also starts a
 * local OTLP receiver (tools/traces) that the services export their spans to, written to
 * `.stack/dev/traces.jsonl`, and that the console's Traces page shows (the gateway's `/local-traces/`).
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { loadDemoData } from './demo-data';
import { stackSettings, stackUp, withServiceNatsUser } from './stack';
import { GATEWAY_PROGRAMS, startGateway } from './stack/gateway';
import { portIsFree } from './stack/readiness';
import { startOtlpReceiver } from './traces/otlp-receiver';
import { banner } from './start/banner';
import { buildIsCurrent } from './start/build-state';
import { PortName, portVariable, StartError, StartPlan, startPlan } from './start/plan';
import { freshLogFile, routeServiceOutput, tailOf } from './start/service-logs';
import { BOOTSTRAP_ADMIN, localIssuer, SignInLink, signInLink } from './start/sign-in-link';

const root = join(__dirname, '..');
const SERVICES = [
  { name: 'authz', entry: 'dist/apps/authz/apps/authz/src/main.js' },
  { name: 'costasset', entry: 'dist/apps/costasset/apps/costasset/src/main.js' },
] as const;

const out = (line: string) => process.stdout.write(`${line}\n`);
const progress = (line: string) => out(`corelite: ${line}`);

async function waitReady(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${url}/health/ready`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new StartError(`${url} did not become ready within ${timeoutMs / 1000} s`);
}

async function assertPortsFree(plan: StartPlan): Promise<void> {
  for (const name of Object.keys(plan.ports) as PortName[]) {
    if (!(await portIsFree(plan.ports[name], plan.host))) {
      throw new StartError(
        `port ${plan.ports[name]} (${portVariable(name)}) is busy: ` +
          `is corelite already running? Stop it, or choose another port with ${portVariable(name)}`,
      );
    }
  }
  if (plan.traces && !(await portIsFree(plan.traces.port, '127.0.0.1'))) {
    throw new StartError(`port ${plan.traces.port} (TRACES_PORT) is busy: choose another port for the traces receiver with TRACES_PORT`);
  }
}

function build(logDir: string): void {
  if (buildIsCurrent(root, [...SERVICES.map((service) => service.entry), 'dist/console/index.html'])) return;
  progress('building the services and the web console');
  const logFile = freshLogFile(logDir, 'build');
  const logFd = fs.openSync(logFile, 'a');
  const result = spawnSync('npm', ['run', '-s', 'build'], { cwd: root, stdio: ['ignore', logFd, logFd] });
  fs.closeSync(logFd);
  if (result.status !== 0) {
    for (const line of tailOf(logFile, 30)) process.stderr.write(`${line}\n`);
    throw new StartError(`the build failed (full output: ${logFile})`);
  }
}

async function demoData(plan: StartPlan): Promise<string | undefined> {
  if (process.env.DEMO_DATA === 'false') return undefined;
  const token = (await (await localIssuer(plan)).issueAccess({ ...BOOTSTRAP_ADMIN, authType: 'internal' }, 600)).token;
  let last: string | undefined;
  const log = (line: string) => {
    last = line.replace(/^demo data: /, '');
    if (plan.verbose) out(`corelite: ${line}`);
  };
  try {
    await loadDemoData({ authzUrl: plan.gatewayUrl, costassetUrl: plan.gatewayUrl, token }, log);
    return last;
  } catch (error) {
    process.stderr.write(`corelite: demo data not loaded: ${(error as Error).message}\n`);
    return undefined;
  }
}

async function revokeSignIn(link: SignInLink | undefined): Promise<void> {
  if (!link) return;
  try {
    await link.revoke();
    progress('the sign-in link is revoked');
  } catch (error) {
    process.stderr.write(`corelite: the sign-in link could not be revoked (${(error as Error).message}); it expires by itself\n`);
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  await assertPortsFree(startPlan(process.env, args));
  const verbose = startPlan(process.env, args).verbose;
  progress('starting the local stack (nats, ldap, s3, mongo, smtp)');
  // Package installs take minutes: those lines always show; the rest only with --verbose.
  const stackEnv = await stackUp({
    profile: 'dev',
    programs: GATEWAY_PROGRAMS,
    log: (line) => (verbose || /installing/.test(line) ? out(line) : undefined),
  });
  const plan = startPlan(process.env, args, stackEnv);
  const logDir = join(stackSettings({ profile: 'dev' }).dataDir, 'logs');

  build(logDir);

  const tracesFile = join(stackSettings({ profile: 'dev' }).dataDir, 'traces.jsonl');
  const receiver = plan.traces ? await startOtlpReceiver({ port: plan.traces.port, file: tracesFile, keep: false }) : undefined;
  if (receiver) progress(`traces: an OTLP/HTTP receiver at ${receiver.url} writes every span to ${tracesFile}`);

  progress('starting authz, costasset and the gateway');
  const gateway = await startGateway({
    host: plan.host,
    port: plan.ports.gateway,
    upstreams: plan.upstreams,
    admission: plan.admission,
    runDir: join(logDir, '..', 'gateway'),
    logDir,
    accessLog: true,
    objectStoreUrl: stackEnv.S3_ENDPOINT,
    // the console's Traces page reads the receiver's recent traces at /local-traces/
    ...(receiver ? { tracesUpstream: new URL(receiver.url).host } : {}),
  });
  const children: ChildProcess[] = [];
  let stopping = false;
  const signedIn: { link?: SignInLink } = {};
  const stop = () => {
    if (stopping) return;
    stopping = true;
    // the services run in their own process group, so a Ctrl-C reaches them only after the link's session is revoked
    void revokeSignIn(signedIn.link).finally(() => {
      for (const child of children) child.kill('SIGTERM');
      void gateway.stop();
      // the services export their last spans as they stop
      setTimeout(() => void receiver?.close(), 3000).unref();
    });
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  process.on('SIGHUP', stop);

  const logFiles: string[] = [];
  for (const service of SERVICES) {
    const logFile = freshLogFile(logDir, service.name);
    logFiles.push(logFile);
    const child = spawn(process.execPath, [join(root, service.entry)], {
      cwd: root,
      // each service connects to NATS as its own user (the stack generated its password)
      env: withServiceNatsUser(plan.serviceEnv, service.name),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    routeServiceOutput(service.name, [child.stdout, child.stderr], logFile, { verbose: plan.verbose, terminal: out });
    child.on('exit', (code, signal) => {
      if (stopping) return;
      process.stderr.write(`corelite: ${service.name} stopped (${signal ?? `exit code ${code}`}); its last lines (${logFile}):\n`);
      for (const line of tailOf(logFile)) process.stderr.write(`  ${line}\n`);
      process.exitCode = 1;
      stop();
    });
    children.push(child);
  }
  logFiles.push(gateway.accessLog ?? gateway.errorLog, gateway.errorLog);

  await Promise.all([waitReady(plan.serviceUrls.authz), waitReady(plan.serviceUrls.costasset)]);
  const demo = await demoData(plan);
  signedIn.link = await signInLink(plan);
  if (!stopping) out(banner(plan, logFiles, root, demo, signedIn.link.url, receiver ? tracesFile : undefined));
}

main().catch((error: Error) => {
  process.stderr.write(`corelite: ${error.message}\n`);
  process.exit(1);
});
