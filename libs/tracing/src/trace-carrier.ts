import { activeTraceApi } from './trace-api';

/** W3C `traceparent`: version 00, a 32-hex trace id, a 16-hex parent span id, flags. */
export const TRACEPARENT_PATTERN = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;
export const TRACESTATE_MAX_LENGTH = 512;

/** The trace context as it travels in headers or in a message (`traceparent`, `tracestate`). */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
}

/** The active trace context to send along (empty when tracing is off or no span is active). */
export function currentTraceCarrier(): TraceCarrier {
  const api = activeTraceApi();
  if (!api) return {};
  const carrier: Record<string, string> = {};
  api.propagation.inject(api.context.active(), carrier);
  const { traceparent, tracestate } = carrier;
  if (!traceparent) return {};
  return tracestate ? { traceparent, tracestate } : { traceparent };
}

/** Only a well-formed `traceparent` (and a bounded `tracestate`) is continued. */
export function validTraceCarrier(carrier: TraceCarrier | undefined): TraceCarrier | undefined {
  if (!carrier?.traceparent || !TRACEPARENT_PATTERN.test(carrier.traceparent)) return undefined;
  const { traceparent, tracestate } = carrier;
  return tracestate && tracestate.length <= TRACESTATE_MAX_LENGTH ? { traceparent, tracestate } : { traceparent };
}
