/**
 * The Traces page's data (System Admins, `npm start -- --traces`): the local OTLP receiver's recent
 * traces and the spans of one, read through the gateway's `/local-traces/` (same origin), and the
 * rows of a trace's waterfall.
 */

/** One of the recent traces (tools/traces/recent-spans.ts). */
export interface TraceSummary {
  traceId: string;
  name: string;
  service: string;
  startTime: string;
  durationMs: number;
  spanCount: number;
  error: boolean;
}

/** A span as the receiver answers it (the fields the waterfall uses). */
export interface TraceSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  service: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  statusCode?: number;
}

/** One line of the waterfall: its span, its depth under its parent, and where its bar lies (% of the trace). */
export interface WaterfallRow {
  span: TraceSpan;
  depth: number;
  offsetMs: number;
  durationMs: number;
  left: number;
  width: number;
  error: boolean;
}

const nanos = (value: string) => {
  try {
    return BigInt(value);
  } catch {
    return 0n;
  }
};

/**
 * The spans in tree order (each after its parent, siblings by start), indented by depth; a span whose
 * parent is not among them is a root. Bars are placed in percent of the whole trace.
 */
export function waterfallRows(spans: readonly TraceSpan[]): WaterfallRow[] {
  if (spans.length === 0) return [];
  const start = spans.map((span) => nanos(span.startTimeUnixNano)).reduce((a, b) => (b < a ? b : a));
  // milliseconds since the trace's start (exact: nanoseconds since 1970 exceed a double's precision)
  const ms = (value: string) => Number(nanos(value) - start) / 1e6;
  const total = Math.max(...spans.map((span) => ms(span.endTimeUnixNano)), 1e-6);
  const ids = new Set(spans.map((span) => span.spanId));
  const children = new Map<string | undefined, TraceSpan[]>();
  for (const span of spans) {
    const parent = span.parentSpanId && ids.has(span.parentSpanId) && span.parentSpanId !== span.spanId ? span.parentSpanId : undefined;
    children.set(parent, [...(children.get(parent) ?? []), span]);
  }
  for (const list of children.values()) list.sort((a, b) => ms(a.startTimeUnixNano) - ms(b.startTimeUnixNano));
  const rows: WaterfallRow[] = [];
  const seen = new Set<string>();
  const visit = (span: TraceSpan, depth: number) => {
    if (seen.has(span.spanId)) return;
    seen.add(span.spanId);
    const offsetMs = ms(span.startTimeUnixNano);
    const durationMs = Math.max(0, ms(span.endTimeUnixNano) - ms(span.startTimeUnixNano));
    const left = (offsetMs / total) * 100;
    const width = Math.min(100 - left, Math.max((durationMs / total) * 100, 0.5));
    rows.push({ span, depth, offsetMs, durationMs, left, width, error: span.statusCode === 2 });
    for (const child of children.get(span.spanId) ?? []) visit(child, depth + 1);
  };
  for (const root of children.get(undefined) ?? []) visit(root, 0);
  // spans in a parent cycle have no root: shown last, at the top level
  for (const span of spans) visit(span, 0);
  return rows;
}

/** A duration for the table: `850 µs`, `12.3 ms`, `1.25 s`. */
export function durationLabel(durationMs: number): string {
  if (durationMs < 1) return `${Math.round(durationMs * 1000)} µs`;
  if (durationMs < 1000) return `${durationMs.toFixed(durationMs < 10 ? 2 : 1)} ms`;
  return `${(durationMs / 1000).toFixed(2)} s`;
}

/** A trace's start for the list: the local time to the millisecond, `14:03:07.215`. */
export const timeLabel = (iso: string) => new Date(iso).toLocaleTimeString('en-GB', { hour12: false, fractionalSecondDigits: 3 });

/** The receiver's answer, or undefined when `/local-traces/` is not the receiver (no `--traces`: 404, or the console's index.html). */
async function json<T>(path: string, check: (body: T) => boolean): Promise<T | undefined> {
  const response = await fetch(path, { headers: { accept: 'application/json' } });
  if (!response.ok || !response.headers.get('content-type')?.startsWith('application/json')) return undefined;
  const body = (await response.json()) as T;
  return check(body) ? body : undefined;
}

/** The recent traces, latest first; undefined when the receiver is not there. */
export async function recentTraces(limit = 50): Promise<TraceSummary[] | undefined> {
  const body = await json<{ traces: TraceSummary[] }>(`/local-traces/recent?limit=${limit}`, (answer) => Array.isArray(answer?.traces));
  return body?.traces;
}

/** The kept spans of one trace; undefined when the receiver has none of it (any more). */
export async function traceSpans(traceId: string): Promise<TraceSpan[] | undefined> {
  const body = await json<{ spans: TraceSpan[] }>(`/local-traces/${encodeURIComponent(traceId)}`, (answer) => Array.isArray(answer?.spans));
  return body?.spans;
}

/** Whether the Traces page has anything to show: the gateway proxies a running receiver. */
export const tracesAvailable = () =>
  recentTraces(1).then(
    (traces) => traces !== undefined,
    () => false,
  );
