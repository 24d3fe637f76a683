import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as api from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { traceServerRequest } from './server-span';
import { useTraceApi } from './trace-api';
import { currentTraceCarrier } from './trace-carrier';

const TRACE = '0af7651916cd43dd8448eb211c80319c';

function exchange(url: string, traceparent?: string) {
  const request = Object.assign(new EventEmitter(), {
    url,
    method: 'POST',
    headers: traceparent ? { traceparent } : {},
  }) as unknown as IncomingMessage & { route?: { path: string }; baseUrl?: string };
  const response = Object.assign(new EventEmitter(), { statusCode: 200 }) as unknown as ServerResponse;
  return { request, response };
}

describe('the server span of a request', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

  beforeAll(() => {
    provider.register();
    useTraceApi(api);
  });
  afterAll(async () => {
    useTraceApi(undefined);
    await provider.shutdown();
  });
  beforeEach(() => exporter.reset());

  it('continues a sampled caller, named after the route template and ended with the status when the response closes', () => {
    const { request, response } = exchange('/api/costasset/v1/jobs/42', `00-${TRACE}-b7ad6b7169203331-01`);
    let carrier = {};
    traceServerRequest(request, response, () => {
      carrier = currentTraceCarrier();
    });
    expect(exporter.getFinishedSpans()).toEqual([]);
    Object.assign(request, { baseUrl: '/api/costasset/v1', route: { path: '/jobs/:jobId' } });
    response.statusCode = 503;
    response.emit('close');
    const [span] = exporter.getFinishedSpans();
    expect(span.name).toBe('POST /api/costasset/v1/jobs/:jobId');
    expect(span.kind).toBe(api.SpanKind.SERVER);
    expect(span.spanContext().traceId).toBe(TRACE);
    expect(span.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
    expect(span.attributes).toEqual({
      'http.request.method': 'POST',
      'http.route': '/api/costasset/v1/jobs/:jobId',
      'http.response.status_code': 503,
    });
    expect(span.status.code).toBe(api.SpanStatusCode.ERROR);
    expect(carrier).toEqual({ traceparent: `00-${TRACE}-${span.spanContext().spanId}-01` });
  });

  it('starts no span under an unsampled caller, and passes its context on as it is', () => {
    const unsampled = `00-${TRACE}-b7ad6b7169203331-00`;
    const { request, response } = exchange('/core/authorization/v1/me', unsampled);
    let carrier = {};
    traceServerRequest(request, response, () => {
      carrier = currentTraceCarrier();
    });
    response.emit('close');
    expect(exporter.getFinishedSpans()).toEqual([]);
    expect(carrier).toEqual({ traceparent: unsampled });
  });

  it('leaves probes and scrapes untraced', () => {
    for (const url of ['/health/live', '/health/ready', '/metrics']) {
      const { request, response } = exchange(url);
      let carrier: unknown;
      traceServerRequest(request, response, () => {
        carrier = currentTraceCarrier();
      });
      response.emit('close');
      expect(carrier).toEqual({});
    }
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
