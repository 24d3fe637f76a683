/**
 * The OpenTelemetry SDK, loaded by `startTracing` only when tracing is on. Sampler, batch sizes,
 * exporter URL and headers, resource attributes: the standard `OTEL_*` variables, read by the SDK.
 */
import * as api from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { MongoDBInstrumentation } from '@opentelemetry/instrumentation-mongodb';
import { PinoInstrumentation } from '@opentelemetry/instrumentation-pino';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

export interface TracingSdk {
  api: typeof api;
  shutdown(): Promise<void>;
}

/** Only the command's name (`find`, `insert`…): never its values, and no serializing of each command, sampled or not. */
const commandName = (command: Record<string, unknown>): string => Object.keys(command)[0] ?? '';

export function startTracingSdk(service: string, instance: string): TracingSdk {
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (the env detector) win over these defaults
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': service, 'service.instance.id': instance }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        // the server span is the traffic middleware's (traceServerRequest): cheaper for requests not sampled
        disableIncomingRequestInstrumentation: true,
        // calls to other services (object store, JWKS) only within a traced request or job
        requireParentforOutgoingSpans: true,
      }),
      new MongoDBInstrumentation({ requireParentSpan: true, dbStatementSerializer: commandName }),
      // `trace_id`, `span_id` and `trace_flags` on every log line; the lines themselves stay on stdout
      new PinoInstrumentation({ disableLogSending: true }),
    ],
  });
  return { api, shutdown: () => provider.shutdown() };
}
