import { hostname } from 'node:os';
import { loadEnvironment } from '@lib/config';
import { useTraceApi } from './trace-api';
import { TracingEnvironment, tracingRequested } from './tracing-environment';

export interface Tracing {
  enabled: boolean;
  /** Exports the spans still buffered and stops. */
  shutdown(): Promise<void>;
}

const OFF: Tracing = { enabled: false, shutdown: async () => undefined };

/**
 * Starts tracing when an OTLP endpoint is set (`OTEL_EXPORTER_OTLP_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), otherwise loads nothing. Must run before the
 * instrumented modules (http, express, mongodb, pino) are first required: `main.ts` calls it
 * before it imports the application. Throws `EnvironmentError` for a malformed `OTEL_*` variable.
 */
export function startTracing(service: string, source: NodeJS.ProcessEnv = process.env): Tracing {
  const env = loadEnvironment(TracingEnvironment, source);
  if (!tracingRequested(env)) return OFF;
  // loaded here only: with tracing off the SDK and its instrumentations are never required
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startTracingSdk } = require('./tracing-sdk') as typeof import('./tracing-sdk');
  const parentBased = (env.OTEL_TRACES_SAMPLER ?? 'parentbased_always_on').startsWith('parentbased_');
  const sdk = startTracingSdk(service, source.INSTANCE_ID ?? `${hostname()}:${process.pid}`);
  useTraceApi(sdk.api, parentBased);
  // the last spans of a process that stops (a job's, a shutdown's) are exported before it exits
  process.once('beforeExit', () => void sdk.shutdown());
  return {
    enabled: true,
    shutdown: async () => {
      useTraceApi(undefined);
      await sdk.shutdown();
    },
  };
}
