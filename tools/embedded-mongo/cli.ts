import { startEmbeddedMongo } from './src';
import { parseParameterSetting, ServerParameters, type ParameterName } from './src/parameters';

const USAGE =
  'usage: cli.ts [--host 127.0.0.1] [--port 27017] [--data-dir <dir>] [--notablescan] [--setParameter name=value ...]\n' +
  '              [--journal-commit-interval-ms 100] [--checkpoint-min-mb 64]\n' +
  '  parameters: notablescan=true|false, internalQueryExecYieldPeriodMS=<ms>, cursorTimeoutMillis=<ms>';

function argument(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  if (index < 0) return undefined;
  const value = process.argv[index + 1];
  if (value === undefined || value.startsWith('--')) throw new Error(`--${name} needs a value\n${USAGE}`);
  return value;
}

function integer(name: string, fallback: number, min: number, max: number): number {
  const raw = argument(name);
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`invalid --${name} ${raw}\n${USAGE}`);
  return value;
}

/** mongod's `--setParameter name=value`, as many as given (and `--notablescan`). */
function parameterSettings(): Partial<Record<ParameterName, boolean | number>> {
  const settings: Partial<Record<ParameterName, boolean | number>> = {};
  process.argv.forEach((word, i) => {
    if (word !== '--setParameter') return;
    const raw = process.argv[i + 1];
    if (raw === undefined || raw.startsWith('--')) throw new Error(`--setParameter needs a value\n${USAGE}`);
    const { name, value } = parseParameterSetting(raw);
    if (!ServerParameters.isKnown(name)) throw new Error(`unknown --setParameter ${raw}\n${USAGE}`);
    // Checked now, so that a bad value stops the start with a message.
    new ServerParameters().set(name, value);
    settings[name] = value;
  });
  if (process.argv.includes('--notablescan')) settings.notablescan = true;
  return settings;
}

async function main(): Promise<void> {
  const host = argument('host') ?? '127.0.0.1';
  const port = integer('port', 27017, 0, 65535);
  const server = await startEmbeddedMongo({
    host,
    port,
    dataDir: argument('data-dir'),
    parameters: parameterSettings(),
    commitIntervalMs: integer('journal-commit-interval-ms', 100, 1, 500),
    checkpointMinBytes: integer('checkpoint-min-mb', 64, 1, 1_048_576) * 1024 * 1024,
  });
  process.stdout.write(`embedded-mongo listening on ${server.uri}\n`);
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`embedded-mongo: stopping failed: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`embedded-mongo failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
