import type { Context, Span, SpanContext } from '@opentelemetry/api';
import { activeTraceApi, followsParentSampling, TraceApi } from './trace-api';
import { TraceCarrier, validTraceCarrier } from './trace-carrier';

/**
 * What a span may carry: ids, types, counts and names of things, never a token, a secret or a
 * cost figure (test/e2e/tracing scans every exported attribute).
 */
export type SpanAttributes = Record<string, string | number | boolean>;

export type SpanKindName = 'internal' | 'server' | 'client' | 'producer' | 'consumer';

export interface SpanOptions {
  kind?: SpanKindName;
  attributes?: SpanAttributes;
  /** The context of a received message: the span continues it (a new trace when it has none). */
  parent?: TraceCarrier;
  /** Contexts the span follows from without being their child (e.g. the request that submitted a job). */
  links?: TraceCarrier[];
}

/** The attribute every span with a problem carries: its `code` (e.g. `DATABASE_TIMEOUT`). */
export const PROBLEM_CODE_ATTRIBUTE = 'corelite.problem.code';

const TRACER = 'corelite';

function contextOf(api: TraceApi, carrier: TraceCarrier | undefined): Context {
  const valid = validTraceCarrier(carrier);
  return valid ? api.propagation.extract(api.ROOT_CONTEXT, valid) : api.ROOT_CONTEXT;
}

function spanContextOf(api: TraceApi, carrier: TraceCarrier): SpanContext | undefined {
  const spanContext = api.trace.getSpanContext(contextOf(api, carrier));
  return spanContext && api.isSpanContextValid(spanContext) ? spanContext : undefined;
}

/**
 * Whether the context holds a parent that is not sampled: under a parent-based sampler its
 * children are not either, and the parent's context (continued as it is) is all they would pass on.
 */
function unsampled(api: TraceApi, context: Context): boolean {
  const spanContext = api.trace.getSpanContext(context);
  return spanContext !== undefined && api.isSpanContextValid(spanContext) && (spanContext.traceFlags & api.TraceFlags.SAMPLED) === 0;
}

/** The error's stable code (a problem's `code`) or its class name: never its message, which may hold data. */
function errorType(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[A-Z][A-Z0-9_]{0,63}$/.test(code)) return code;
  return error instanceof Error ? error.constructor.name : 'unknown';
}

function markFailed(api: TraceApi, span: Span, type: string): void {
  span.setAttribute('error.type', type);
  span.setStatus({ code: api.SpanStatusCode.ERROR, message: type });
}

/**
 * Runs `work` inside a new active span (a child of the active one, or of `options.parent`), ends
 * it, and marks it failed with the error's code when `work` throws (a problem under 500 only gets
 * its code: the caller's error, not this span's). With tracing off, only `work`.
 */
export function inSpan<T>(name: string, options: SpanOptions, work: () => Promise<T>): Promise<T> {
  const api = activeTraceApi();
  if (!api) return work();
  const parent = 'parent' in options ? contextOf(api, options.parent) : api.context.active();
  if (followsParentSampling() && unsampled(api, parent)) return 'parent' in options ? api.context.with(parent, work) : work();
  const links = (options.links ?? []).flatMap((carrier) => {
    const context = spanContextOf(api, carrier);
    return context ? [{ context }] : [];
  });
  const kind = api.SpanKind[(options.kind ?? 'internal').toUpperCase() as keyof typeof api.SpanKind];
  const tracer = api.trace.getTracer(TRACER);
  return tracer.startActiveSpan(name, { kind, attributes: options.attributes, links }, parent, async (span) => {
    try {
      return await work();
    } catch (error) {
      const status = (error as { getStatus?: () => number } | null)?.getStatus?.();
      if (status !== undefined && status < 500) span.setAttribute(PROBLEM_CODE_ATTRIBUTE, errorType(error));
      else markFailed(api, span, errorType(error));
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Adds attributes to the active span (nothing when tracing is off). */
export function setSpanAttributes(attributes: SpanAttributes): void {
  activeTraceApi()?.trace.getActiveSpan()?.setAttributes(attributes);
}

/**
 * Records the problem answered on the active span: its `code` always, and a failed status for a
 * 5xx (a 4xx is the caller's error, not the service's).
 */
export function recordProblem(status: number, code: string): void {
  const api = activeTraceApi();
  const span = api?.trace.getActiveSpan();
  if (!api || !span) return;
  span.setAttribute(PROBLEM_CODE_ATTRIBUTE, code);
  if (status >= 500) markFailed(api, span, code);
}
