import * as api from '@opentelemetry/api';
import { headers } from 'nats';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { inSpan, useTraceApi } from '@lib/tracing';
import { messagingAttributes, traceCarrierOf, traceHeaders } from './trace-headers';

describe('messaging: trace context in NATS headers', () => {
  it('sends no headers with tracing off', () => {
    expect(traceHeaders()).toBeUndefined();
  });

  it('reads nothing from a message without headers, or without a traceparent', () => {
    expect(traceCarrierOf(undefined)).toEqual({});
    const other = headers();
    other.set('Nats-Msg-Id', 'x');
    expect(traceCarrierOf(other)).toEqual({});
  });

  it('names the subject and the tenant, nothing else of the payload', () => {
    expect(messagingAttributes('authz.principal.resolve', 'send', { tenantId: 't1', userId: 'u', sessionId: 's' })).toEqual({
      'messaging.system': 'nats',
      'messaging.destination.name': 'authz.principal.resolve',
      'messaging.operation.type': 'send',
      'corelite.tenant.id': 't1',
    });
    expect(messagingAttributes('core.flags.list', 'process', undefined)).not.toHaveProperty('corelite.tenant.id');
  });

  describe('with tracing on', () => {
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

    it('carries the sending span to the receiver, whose span continues it', async () => {
      let sent: ReturnType<typeof traceHeaders>;
      await inSpan('send authz.principal.resolve', { kind: 'client' }, async () => {
        sent = traceHeaders();
      });
      // as the receiver sees it: the headers encoded on the wire and decoded again
      const received = headers();
      for (const [name, values] of sent!) for (const value of values) received.append(name, value);
      await inSpan('process authz.principal.resolve', { kind: 'server', parent: traceCarrierOf(received) }, async () => undefined);
      const [send, process] = exporter.getFinishedSpans();
      expect(process.spanContext().traceId).toBe(send.spanContext().traceId);
      expect(process.parentSpanContext?.spanId).toBe(send.spanContext().spanId);
    });

    it('sends no headers outside a span', () => {
      expect(traceHeaders()).toBeUndefined();
    });
  });
});
