import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '..', '..', '..');

/** What a fresh process has loaded after `startTracing` with `env`: OpenTelemetry modules and whether tracing is active. */
function afterStart(env: NodeJS.ProcessEnv): { loaded: string[]; active: boolean } {
  const script =
    `
    const tracing = require('./libs/tracing/src');
    tracing.startTracing('authz');
    const loaded = Object.keys(require.cache).filter((path) => path.includes('@opentelemetry'))` +
    `.map((path) => path.split('node_modules/')[1].split('/').slice(0, 2).join('/'));
    process.stdout.write(JSON.stringify({ loaded: [...new Set(loaded)], active: tracing.tracingActive() }));
    process.exit(0);
  `;
  const output = execFileSync(process.execPath, ['-r', join(root, 'test/support/swc-register.js'), '-e', script], {
    cwd: root,
    env: { PATH: process.env.PATH, ...env },
  });
  return JSON.parse(output.toString()) as { loaded: string[]; active: boolean };
}

describe('startTracing', () => {
  it('loads nothing of OpenTelemetry without an OTLP endpoint', () => {
    expect(afterStart({})).toEqual({ loaded: [], active: false });
  });

  it('starts the SDK and the instrumentations with one', () => {
    const { loaded, active } = afterStart({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
    expect(active).toBe(true);
    expect(loaded).toEqual(
      expect.arrayContaining([
        '@opentelemetry/sdk-trace-node',
        '@opentelemetry/exporter-trace-otlp-http',
        '@opentelemetry/instrumentation-http',
        '@opentelemetry/instrumentation-mongodb',
        '@opentelemetry/instrumentation-pino',
      ]),
    );
    // its route template comes from the http instrumentation's hook: no wrapper on every layer
    expect(loaded).not.toContain('@opentelemetry/instrumentation-express');
  });
});
