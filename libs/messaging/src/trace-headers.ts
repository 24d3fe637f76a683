import { headers, MsgHdrs } from 'nats';
import { currentTraceCarrier, TraceCarrier, tracingActive } from '@lib/tracing';

/**
 * NATS has no maintained OpenTelemetry instrumentation: the trace context travels in the message
 * headers (`traceparent`, `tracestate`, as in HTTP), written here and read back by the receiver.
 */
export function traceHeaders(): MsgHdrs | undefined {
  if (!tracingActive()) return undefined;
  const carrier = currentTraceCarrier();
  if (!carrier.traceparent) return undefined;
  const hdrs = headers();
  for (const [name, value] of Object.entries(carrier)) if (value) hdrs.set(name, value);
  return hdrs;
}

/** The trace context a received message carries (none without headers). */
export function traceCarrierOf(hdrs: MsgHdrs | undefined): TraceCarrier {
  const traceparent = hdrs?.get('traceparent');
  if (!traceparent) return {};
  const tracestate = hdrs?.get('tracestate');
  return tracestate ? { traceparent, tracestate } : { traceparent };
}

/** The attributes of a messaging span: the subject as the contract names it, and the tenant. */
export function messagingAttributes(subject: string, operation: 'send' | 'process', payload: unknown): Record<string, string> {
  const tenantId = (payload as { tenantId?: unknown } | null)?.tenantId;
  return {
    'messaging.system': 'nats',
    'messaging.destination.name': subject,
    'messaging.operation.type': operation,
    ...(typeof tenantId === 'string' ? { 'corelite.tenant.id': tenantId } : {}),
  };
}
