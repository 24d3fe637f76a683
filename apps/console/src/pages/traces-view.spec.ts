import { describe, expect, it } from '@jest/globals';
import { durationLabel, type TraceSpan, waterfallRows } from './traces-view';

const BASE = 1_767_225_600_000_000_000n;
const span = (spanId: string, startMs: number, endMs: number, extra: Partial<TraceSpan> = {}): TraceSpan => ({
  traceId: 'aa'.repeat(16),
  spanId,
  name: `op ${spanId}`,
  service: 'costasset',
  startTimeUnixNano: String(BASE + BigInt(startMs * 1e6)),
  endTimeUnixNano: String(BASE + BigInt(endMs * 1e6)),
  ...extra,
});

describe('the waterfall of a trace', () => {
  it('puts each span under its parent, siblings by start, with bars in percent of the trace', () => {
    const rows = waterfallRows([
      span('c2', 60, 100, { parentSpanId: 'root', statusCode: 2 }),
      span('g1', 20, 30, { parentSpanId: 'c1' }),
      span('root', 0, 100),
      span('c1', 10, 50, { parentSpanId: 'root' }),
    ]);
    expect(rows.map((row) => [row.span.spanId, row.depth])).toEqual([
      ['root', 0],
      ['c1', 1],
      ['g1', 2],
      ['c2', 1],
    ]);
    expect(rows[1]).toMatchObject({ offsetMs: 10, durationMs: 40, left: 10, width: 40, error: false });
    expect(rows[3]).toMatchObject({ left: 60, width: 40, error: true });
  });

  it('shows a span whose parent is missing as a root, spans in a parent cycle once, and a zero-length span as a sliver', () => {
    const rows = waterfallRows([
      span('a', 0, 10),
      span('orphan', 5, 5, { parentSpanId: 'gone' }),
      span('x', 1, 2, { parentSpanId: 'y' }),
      span('y', 1, 2, { parentSpanId: 'x' }),
    ]);
    expect(rows.map((row) => [row.span.spanId, row.depth])).toEqual([
      ['a', 0],
      ['orphan', 0],
      ['x', 0],
      ['y', 1],
    ]);
    expect(rows[1]).toMatchObject({ durationMs: 0, left: 50, width: 0.5 });
    expect(waterfallRows([])).toEqual([]);
  });

  it('reads durations in the unit that fits', () => {
    expect(durationLabel(0.85)).toBe('850 µs');
    expect(durationLabel(2.345)).toBe('2.35 ms');
    expect(durationLabel(123.45)).toBe('123.5 ms');
    expect(durationLabel(1250)).toBe('1.25 s');
  });
});
