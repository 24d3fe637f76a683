import { EnvironmentError } from '@lib/config';
import { startTracing } from '@lib/tracing';

function fail(error: unknown): never {
  process.stderr.write(`${error instanceof EnvironmentError ? error.message : `costasset failed to start: ${(error as Error).message}`}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  // before the application is loaded, so that http, express, mongodb and pino are instrumented
  startTracing('costasset');
  const { createCostassetApp } = await import('./create-costasset-app');
  const { app, env } = await createCostassetApp();
  await app.listen(env.COSTASSET_PORT, env.HOST);
}

main().catch(fail);
