import { EnvironmentError } from '@lib/config';
import { createAuthzApp } from './create-authz-app';

async function main(): Promise<void> {
  const { app, env } = await createAuthzApp();
  await app.listen(env.AUTHZ_PORT, env.HOST);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof EnvironmentError ? error.message : `authz failed to start: ${(error as Error).message}`}\n`);
  process.exit(1);
});
