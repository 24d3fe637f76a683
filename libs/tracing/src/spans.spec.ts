import * as api from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { EnvironmentError, loadEnvironment } from '@lib/config';
import { inSpan, PROBLEM_CODE_ATTRIBUTE, recordProblem, setSpanAttributes } from './spans';
import { tracingActive, useTraceApi } from './trace-api';
import { currentTraceCarrier, validTraceCarrier } from './trace-carrier';
import { TracingEnvironment, tracingRequested } from './tracing-environment';

const SUBMITTER = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };

class Problem extends Error {
  constructor(
    readonly code: string,
    private readonly status: number,
  ) {
    super(`${code} with a message that may hold data`);
  }
  getStatus(): number {
    return this.status;
  }
}

describe('tracing: off', () => {
  it('loads nothing and runs the work as it is', async () => {
    expect(tracingActive()).toBe(false);
    expect(currentTraceCarrier()).toEqual({});
    await expect(inSpan('work', { parent: SUBMITTER }, async () => 42)).resolves.toBe(42);
    expect(() => setSpanAttributes({ a: 1 })).not.toThrow();
    expect(() => recordProblem(500, 'INTERNAL_ERROR')).not.toThrow();
  });
});

describe('tracing: the environment', () => {
  const requested = (env: NodeJS.ProcessEnv) => tracingRequested(loadEnvironment(TracingEnvironment, env));

  it('is on only with an OTLP endpoint, and neither the SDK nor the exporter switched off', () => {
    expect(requested({})).toBe(false);
    expect(requested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toBe(true);
    expect(requested({ OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBe(false);
    expect(requested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(requested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(requested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
  });

  it('refuses a malformed variable without echoing its value', () => {
    const load = () =>
      loadEnvironment(TracingEnvironment, {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url s3cr3t',
        OTEL_TRACES_SAMPLER_ARG: '2',
        OTEL_TRACES_SAMPLER: 'sometimes',
      });
    expect(load).toThrow(EnvironmentError);
    try {
      load();
    } catch (error) {
      const message = (error as Error).message;
      expect(message).toMatch(/OTEL_EXPORTER_OTLP_ENDPOINT/);
      expect(message).toMatch(/OTEL_TRACES_SAMPLER_ARG/);
      expect(message).toMatch(/OTEL_TRACES_SAMPLER:/);
      expect(message).not.toMatch(/s3cr3t|sometimes/);
    }
  });
});

describe('tracing: on', () => {
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

  it('sends the active span along as a W3C traceparent', async () => {
    let carrier = {};
    await inSpan('outer', {}, async () => {
      carrier = currentTraceCarrier();
    });
    const [span] = exporter.getFinishedSpans();
    expect(carrier).toEqual({ traceparent: `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01` });
  });

  it('continues a received context: same trace, the sender as parent, and links', async () => {
    await inSpan(
      'job attempt',
      { kind: 'consumer', parent: SUBMITTER, links: [SUBMITTER], attributes: { 'corelite.job.id': 'j1' } },
      async () => {
        setSpanAttributes({ 'corelite.job.type': 'focus.import' });
      },
    );
    const [span] = exporter.getFinishedSpans();
    expect(span.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(span.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
    expect(span.kind).toBe(api.SpanKind.CONSUMER);
    expect(span.links.map((link) => link.context.spanId)).toEqual(['b7ad6b7169203331']);
    expect(span.attributes).toEqual({ 'corelite.job.id': 'j1', 'corelite.job.type': 'focus.import' });
  });

  it('starts no span under an unsampled parent, and passes that context on as it is', async () => {
    const unsampled = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00' };
    let carriers: unknown[] = [];
    await inSpan('job attempt', { kind: 'consumer', parent: unsampled }, async () => {
      await inSpan('write batch', {}, async () => {
        carriers = [currentTraceCarrier()];
      });
    });
    expect(exporter.getFinishedSpans()).toEqual([]);
    expect(carriers).toEqual([unsampled]);
  });

  it('starts a new trace for a message without a (valid) context, never the one that happens to be active', async () => {
    await inSpan('outer', {}, () => inSpan('received', { parent: { traceparent: '00-zz-bad-01' } }, async () => undefined));
    const [received, outer] = exporter.getFinishedSpans();
    expect(received.parentSpanContext).toBeUndefined();
    expect(received.spanContext().traceId).not.toBe(outer.spanContext().traceId);
  });

  it("marks a failed span with the error's code, never its message; a 4xx problem only gets its code", async () => {
    await expect(inSpan('fails', {}, () => Promise.reject(new Problem('DATABASE_TIMEOUT', 503)))).rejects.toThrow();
    await expect(inSpan('refused', {}, () => Promise.reject(new Problem('TEAM_REQUIRED', 403)))).rejects.toThrow();
    await expect(inSpan('crashes', {}, () => Promise.reject(new TypeError('secret in here')))).rejects.toThrow();
    const [fails, refused, crashes] = exporter.getFinishedSpans();
    expect(fails.status).toEqual({ code: api.SpanStatusCode.ERROR, message: 'DATABASE_TIMEOUT' });
    expect(fails.attributes['error.type']).toBe('DATABASE_TIMEOUT');
    expect(refused.status.code).toBe(api.SpanStatusCode.UNSET);
    expect(refused.attributes[PROBLEM_CODE_ATTRIBUTE]).toBe('TEAM_REQUIRED');
    expect(crashes.attributes['error.type']).toBe('TypeError');
    expect(JSON.stringify(exporter.getFinishedSpans().map((span) => [span.attributes, span.status, span.events]))).not.toMatch(
      /message that may|secret/,
    );
  });

  it('records a problem answered on the active span', async () => {
    await inSpan('request', {}, async () => recordProblem(503, 'SERVER_BUSY'));
    await inSpan('request', {}, async () => recordProblem(404, 'NOT_FOUND'));
    const [busy, missing] = exporter.getFinishedSpans();
    expect(busy.attributes).toMatchObject({ [PROBLEM_CODE_ATTRIBUTE]: 'SERVER_BUSY', 'error.type': 'SERVER_BUSY' });
    expect(busy.status.code).toBe(api.SpanStatusCode.ERROR);
    expect(missing.attributes).toEqual({ [PROBLEM_CODE_ATTRIBUTE]: 'NOT_FOUND' });
  });
});

describe('tracing: carriers', () => {
  it('continues only well-formed contexts', () => {
    expect(validTraceCarrier(SUBMITTER)).toEqual(SUBMITTER);
    expect(validTraceCarrier({ ...SUBMITTER, tracestate: 'vendor=1' })).toEqual({ ...SUBMITTER, tracestate: 'vendor=1' });
    expect(validTraceCarrier({ ...SUBMITTER, tracestate: 'x'.repeat(600) })).toEqual(SUBMITTER);
    expect(validTraceCarrier({ traceparent: '00-00000000000000000000000000000000-b7ad6b7169203331-01' })).toBeUndefined();
    expect(validTraceCarrier({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01' })).toBeUndefined();
    expect(validTraceCarrier({ traceparent: '00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01' })).toBeUndefined();
    expect(validTraceCarrier({})).toBeUndefined();
    expect(validTraceCarrier(undefined)).toBeUndefined();
  });
});
