import { gzipSync } from 'node:zlib';
import { startOtlpReceiver } from './otlp-receiver';

const EXPORT = {
  resourceSpans: [
    {
      resource: {
        attributes: [
          { key: 'service.name', value: { stringValue: 'costasset' } },
          { key: 'service.instance.id', value: { stringValue: 'w1' } },
        ],
      },
      scopeSpans: [
        {
          spans: [
            {
              traceId: '0af7651916cd43dd8448eb211c80319c',
              spanId: 'b7ad6b7169203331',
              name: 'job attempt',
              kind: 5,
              startTimeUnixNano: '1',
              endTimeUnixNano: '2',
              attributes: [
                { key: 'corelite.job.attempt', value: { intValue: '2' } },
                { key: 'list', value: { arrayValue: { values: [{ boolValue: true }] } } },
              ],
              links: [{ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: '00f067aa0ba902b7' }],
              status: { code: 2 },
            },
          ],
        },
      ],
    },
  ],
};

describe('the local OTLP/HTTP receiver', () => {
  it('takes OTLP/JSON exports, plain or gzipped, and flattens their spans', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const post = (body: Buffer, headers: Record<string, string>) => fetch(`${receiver.url}/v1/traces`, { method: 'POST', body, headers });
      expect((await post(Buffer.from(JSON.stringify(EXPORT)), { 'content-type': 'application/json' })).status).toBe(200);
      expect(
        (await post(gzipSync(JSON.stringify(EXPORT)), { 'content-type': 'application/json', 'content-encoding': 'gzip' })).status,
      ).toBe(200);
      expect((await post(Buffer.from([1, 2]), { 'content-type': 'application/x-protobuf' })).status).toBe(415);
      expect(receiver.spans).toHaveLength(2);
      expect(receiver.spans[0]).toMatchObject({
        service: 'costasset',
        instance: 'w1',
        name: 'job attempt',
        kind: 5,
        attributes: { 'corelite.job.attempt': 2, list: [true] },
        links: [{ spanId: '00f067aa0ba902b7' }],
        statusCode: 2,
      });
      expect(receiver.refused).toBe(1);
    } finally {
      await receiver.close();
    }
  });
});

describe('the local OTLP/HTTP receiver, read by the console', () => {
  const TRACE_A = 'aa'.repeat(16);
  const TRACE_B = 'bb'.repeat(16);
  const MS = 1_000_000n;
  const BASE = 1_767_225_600_000n * MS; // 2026-01-01T00:00:00Z
  const span = (traceId: string, spanId: string, startMs: number, endMs: number, extra: object = {}) => ({
    traceId,
    spanId,
    name: `op ${spanId}`,
    startTimeUnixNano: String(BASE + BigInt(startMs) * MS),
    endTimeUnixNano: String(BASE + BigInt(endMs) * MS),
    ...extra,
  });
  const exportOf = (service: string, spans: object[]) => ({
    resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] }, scopeSpans: [{ spans }] }],
  });

  it('lists the recent traces, latest first, and answers the spans of one; refuses anything else', async () => {
    const receiver = await startOtlpReceiver({ keep: false });
    try {
      const post = (body: object) =>
        fetch(`${receiver.url}/v1/traces`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
      await post(exportOf('gateway', [span(TRACE_A, 'a1', 0, 40)]));
      await post(exportOf('costasset', [span(TRACE_A, 'a2', 5, 30, { parentSpanId: 'a1', status: { code: 2 } })]));
      await post(exportOf('authz', [span(TRACE_B, 'b2', 12, 13, { parentSpanId: 'b1' }), span(TRACE_B, 'b1', 10, 20)]));
      expect(receiver.spans).toHaveLength(0);

      const recent = await fetch(`${receiver.url}/v1/traces/recent`);
      expect(recent.status).toBe(200);
      expect(((await recent.json()) as { traces: unknown[] }).traces).toEqual([
        {
          traceId: TRACE_B,
          name: 'op b1',
          service: 'authz',
          startTime: '2026-01-01T00:00:00.010Z',
          durationMs: 10,
          spanCount: 2,
          error: false,
        },
        {
          traceId: TRACE_A,
          name: 'op a1',
          service: 'gateway',
          startTime: '2026-01-01T00:00:00.000Z',
          durationMs: 40,
          spanCount: 2,
          error: true,
        },
      ]);
      const one = (await (await fetch(`${receiver.url}/v1/traces/recent?limit=1`)).json()) as { traces: { traceId: string }[] };
      expect(one.traces.map((trace) => trace.traceId)).toEqual([TRACE_B]);

      const trace = (await (await fetch(`${receiver.url}/v1/traces/${TRACE_B}`)).json()) as {
        spans: { spanId: string; service: string }[];
      };
      expect(trace.spans.map((each) => each.spanId)).toEqual(['b1', 'b2']);

      const status = async (path: string, method = 'GET') => (await fetch(`${receiver.url}${path}`, { method })).status;
      expect(await status(`/v1/traces/${'cc'.repeat(16)}`)).toBe(404);
      expect(await status('/v1/traces/recent?limit=201')).toBe(400);
      expect(await status('/v1/traces/recent?limit=x')).toBe(400);
      expect(await status('/v1/traces/recent', 'DELETE')).toBe(405);
      expect(await status('/v1/traces')).toBe(405);
      expect(await status('/v1/traces/../../etc/passwd')).toBe(404);
      expect(await status('/')).toBe(404);
    } finally {
      await receiver.close();
    }
  });

  it('keeps only the last spans for the console', async () => {
    const receiver = await startOtlpReceiver({ recentSpans: 2 });
    try {
      const body = JSON.stringify(exportOf('s', [span(TRACE_A, 'a1', 0, 1), span(TRACE_B, 'b1', 2, 3), span(TRACE_B, 'b2', 2, 3)]));
      await fetch(`${receiver.url}/v1/traces`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
      expect(receiver.spans).toHaveLength(3);
      const recent = (await (await fetch(`${receiver.url}/v1/traces/recent`)).json()) as {
        traces: { traceId: string; spanCount: number }[];
      };
      expect(recent.traces).toEqual([expect.objectContaining({ traceId: TRACE_B, spanCount: 2 })]);
    } finally {
      await receiver.close();
    }
  });
});
