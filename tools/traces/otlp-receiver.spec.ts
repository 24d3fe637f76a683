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
