/**
 * The last spans the local OTLP receiver took, in a bounded ring, for the console's Traces page
 * (`GET /v1/traces/recent`, `GET /v1/traces/<traceId>`): kept even when the receiver keeps nothing
 * else in memory; the receiver's file stays the full record.
 */
/** What the ring reads of a span (otlp-receiver.ts's `ReceivedSpan` has it). */
export interface KeptSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  service: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  statusCode?: number;
}

/** One trace of the recent ones, as the Traces page lists it. */
export interface TraceSummary {
  traceId: string;
  /** The root span's name and service (the earliest span whose parent is not among the trace's spans). */
  name: string;
  service: string;
  /** ISO time of the trace's earliest span start. */
  startTime: string;
  durationMs: number;
  spanCount: number;
  /** Whether any of its spans has an error status. */
  error: boolean;
}

export const RECENT_SPANS = 20_000;
export const MAX_RECENT_TRACES = 200;

const nanos = (value: string) => {
  try {
    return BigInt(value);
  } catch {
    return 0n;
  }
};

export class RecentSpans<S extends KeptSpan = KeptSpan> {
  private readonly ring: S[] = [];
  private next = 0;

  constructor(private readonly capacity = RECENT_SPANS) {}

  add(spans: S[]): void {
    for (const span of spans) {
      if (this.ring.length < this.capacity) this.ring.push(span);
      else this.ring[this.next] = span;
      this.next = (this.next + 1) % this.capacity;
    }
  }

  /** All kept spans of one trace, earliest first. */
  trace(traceId: string): S[] {
    const spans = this.ring.filter((span) => span.traceId === traceId);
    return spans.sort((a, b) => (nanos(a.startTimeUnixNano) < nanos(b.startTimeUnixNano) ? -1 : 1));
  }

  /** The `limit` traces that started last, latest first. */
  recent(limit: number): TraceSummary[] {
    const byTrace = new Map<string, S[]>();
    for (const span of this.ring) {
      const spans = byTrace.get(span.traceId);
      if (spans) spans.push(span);
      else byTrace.set(span.traceId, [span]);
    }
    const summaries = [...byTrace.values()].map((spans) => summaryOf(spans));
    return summaries
      .sort((a, b) => (a.start > b.start ? -1 : a.start < b.start ? 1 : 0))
      .slice(0, limit)
      .map((entry) => entry.summary);
  }
}

function summaryOf(spans: KeptSpan[]): { start: bigint; summary: TraceSummary } {
  const ids = new Set(spans.map((span) => span.spanId));
  let start = nanos(spans[0].startTimeUnixNano);
  let end = nanos(spans[0].endTimeUnixNano);
  let root: KeptSpan | undefined;
  for (const span of spans) {
    const spanStart = nanos(span.startTimeUnixNano);
    if (spanStart < start) start = spanStart;
    if (nanos(span.endTimeUnixNano) > end) end = nanos(span.endTimeUnixNano);
    const isRoot = !span.parentSpanId || !ids.has(span.parentSpanId);
    if (isRoot && (!root || spanStart < nanos(root.startTimeUnixNano))) root = span;
  }
  root ??= spans[0];
  return {
    start,
    summary: {
      traceId: root.traceId,
      name: root.name,
      service: root.service,
      startTime: new Date(Number(start / 1_000_000n)).toISOString(),
      durationMs: Number(end - start) / 1e6,
      spanCount: spans.length,
      error: spans.some((span) => span.statusCode === 2),
    },
  };
}
