import { Readable } from 'node:stream';
import type { Client } from 'minio';
import { uploadStream } from './stream-upload';

function fakeStore(failOnPart?: number) {
  const calls: string[] = [];
  const parts: Buffer[] = [];
  const store = {
    putObject: async (_bucket: string, key: string, body: Buffer) => void calls.push(`put ${key} ${body.length}`),
    initiateNewMultipartUpload: async () => {
      calls.push('initiate');
      return 'upload-1';
    },
    uploadPart: async (config: { partNumber: number }, payload: Buffer) => {
      if (config.partNumber === failOnPart) throw new Error('store down');
      parts.push(payload);
      calls.push(`part ${config.partNumber} ${payload.length}`);
      return { etag: `e${config.partNumber}`, key: 'k', part: config.partNumber };
    },
    completeMultipartUpload: async (_bucket: string, _key: string, _id: string, etags: { part: number; etag: string }[]) =>
      void calls.push(`complete ${etags.map((e) => e.etag).join(',')}`),
    abortMultipartUpload: async () => void calls.push('abort'),
  };
  return { store: store as unknown as Client, calls, parts };
}

const source = (chunks: number, size: number) => Readable.from(Array.from({ length: chunks }, (_, index) => Buffer.alloc(size, index)));

describe('uploadStream', () => {
  it('sends a stream that ends within one part as one PUT', async () => {
    const { store, calls } = fakeStore();
    expect(await uploadStream(store, 'b', 'k', source(3, 10), { partBytes: 100 })).toBe(30);
    expect(calls).toEqual(['put k 30']);
  });

  it('sends a longer stream as parts of at least the part size, holding one part at a time', async () => {
    const { store, calls, parts } = fakeStore();
    const seen: number[] = [];
    expect(await uploadStream(store, 'b', 'k', source(7, 40), { partBytes: 100, onPart: async (bytes) => void seen.push(bytes) })).toBe(
      280,
    );
    expect(seen).toEqual([120, 240, 280]);
    expect(calls).toEqual(['initiate', 'part 1 120', 'part 2 120', 'part 3 40', 'complete e1,e2,e3']);
    expect(Buffer.concat(parts)).toEqual(Buffer.concat(Array.from({ length: 7 }, (_, index) => Buffer.alloc(40, index))));
  });

  it('aborts the multipart upload when a part fails', async () => {
    const { store, calls } = fakeStore(2);
    await expect(uploadStream(store, 'b', 'k', source(7, 40), { partBytes: 100 })).rejects.toThrow('store down');
    expect(calls).toEqual(['initiate', 'part 1 120', 'abort']);
  });
});
