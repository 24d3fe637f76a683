import { EnvironmentError } from '@lib/config';
import { createCostassetApp } from './create-costasset-app';

async function main(): Promise<void> {
  const { app, env } = await createCostassetApp();
  await app.listen(env.COSTASSET_PORT, env.HOST);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof EnvironmentError ? error.message : `costasset failed to start: ${(error as Error).message}`}\n`);
  process.exit(1);
});
