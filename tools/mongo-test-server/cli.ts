import { startMongoTestServer } from './src';

function argument(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 && process.argv[index + 1] !== undefined ? process.argv[index + 1] : fallback;
}

async function main(): Promise<void> {
  const host = argument('host', '127.0.0.1');
  const port = Number(argument('port', '27017'));
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid --port ${port}`);
  const server = await startMongoTestServer({ host, port });
  process.stdout.write(`mongo-test-server listening on ${server.uri}\n`);
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`mongo-test-server failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
