import { EnvironmentError } from '@lib/config';
import { startTracing } from '@lib/tracing';

function fail(error: unknown): never {
  process.stderr.write(`${error instanceof EnvironmentError ? error.message : `authz failed to start: ${(error as Error).message}`}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  // before the application is loaded, so that http, express, mongodb and pino are instrumented
  startTracing('authz');
  const { createAuthzApp } = await import('./create-authz-app');
  const { app, env } = await createAuthzApp();
  await app.listen(env.AUTHZ_PORT, env.HOST);
}

main().catch(fail);
