/**
 * `npm start`: everything a new user needs on one machine. Installs what is missing and starts
 * the local stack (profile dev), builds both services, starts them with the stack's environment,
 * waits until both are ready, and prints the URLs. Ctrl-C stops the services; the stack keeps
 * running (`npm run stack -- down` stops it). The first start loads a small demo data set into the
 * `default` tenant (skip with DEMO_DATA=false).
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { loadSigningKey, TokenIssuer } from '../libs/auth/src';
import { loadDemoData } from './demo-data';
import { stackUp } from './stack';

const root = join(__dirname, '..');
const services = [
  { name: 'authz', entry: 'dist/apps/authz/apps/authz/src/main.js', port: Number(process.env.AUTHZ_PORT ?? 3001) },
  { name: 'costasset', entry: 'dist/apps/costasset/apps/costasset/src/main.js', port: Number(process.env.COSTASSET_PORT ?? 3002) },
];

async function waitReady(port: number, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health/ready`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`the service on port ${port} did not become ready within ${timeoutMs / 1000}s`);
}

async function main(): Promise<void> {
  const stackEnv = await stackUp({ profile: 'dev' });
  process.stdout.write('start: building the services\n');
  const build = spawnSync('npm', ['run', '-s', 'build'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('the build failed');

  // A bounded old space makes V8 collect instead of growing: enrichment streams, so 256 MB is ample.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...stackEnv,
    BOOTSTRAP_TENANTS: process.env.BOOTSTRAP_TENANTS ?? 'default',
    NODE_OPTIONS: process.env.NODE_OPTIONS ?? '--max-old-space-size=256',
  };
  const children: ChildProcess[] = services.map((service) =>
    spawn(process.execPath, [join(root, service.entry)], { cwd: root, env, stdio: 'inherit' }),
  );
  const stop = () => {
    for (const child of children) child.kill('SIGTERM');
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  for (const child of children) {
    child.on('exit', (code) => {
      if (code !== 0 && code !== null) {
        process.stderr.write(`start: a service exited with code ${code}\n`);
        stop();
        process.exitCode = 1;
      }
    });
  }

  await Promise.all(services.map((service) => waitReady(service.port)));
  if (process.env.DEMO_DATA !== 'false') {
    const key = await loadSigningKey({ privateKeyPem: env.JWT_PRIVATE_KEY, devKeysDir: env.DEV_KEYS_DIR ?? '.dev-keys', allowDevKey: true });
    const token = (await new TokenIssuer(key, env.JWT_ISSUER ?? 'corelite-authz').issueAccess({ sub: 'admin', tid: 'default', idp: 'idp-default', groups: [], authType: 'internal' }, 600)).token;
    const [authz, costasset] = services.map((s) => `http://127.0.0.1:${s.port}`);
    await loadDemoData({ authzUrl: authz, costassetUrl: costasset, token }, (line) => process.stdout.write(`start: ${line}\n`)).catch((error: Error) =>
      process.stderr.write(`start: demo data not loaded: ${error.message}\n`),
    );
  }
  const lines = [
    '',
    'corelite is running:',
    ...services.map((s) => `  ${s.name.padEnd(10)} http://127.0.0.1:${s.port}   (Swagger UI: http://127.0.0.1:${s.port}/docs)`),
    '',
    'A token for the bootstrap System Admin:',
    '  npm run -s token -- --sub admin --tenant default --idp idp-default',
    'Ctrl-C stops the services; `npm run stack -- down` stops the stack.',
    '',
  ];
  process.stdout.write(lines.join('\n'));
}

main().catch((error: Error) => {
  process.stderr.write(`start: ${error.message}\n`);
  process.exit(1);
});
