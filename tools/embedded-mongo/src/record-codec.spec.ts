import { Binary, BSONRegExp, Decimal128, Long, MaxKey, MinKey, ObjectId, serialize, Timestamp, UUID } from 'bson';
import type { Document } from './bson-values';
import { decodeStoredDocument } from './document-decoder';
import { FieldSelection, RecordCodec } from './record-codec';
import { deserializeDocument } from './wire-protocol';

/** What the store held before records: the document as the wire decodes it. */
const asReceived = (doc: Document): Document => deserializeDocument(serialize(doc));

describe('RecordCodec', () => {
  const doc: Document = {
    _id: new ObjectId(),
    text: 'café ☕',
    empty: '',
    small: 42,
    negative: -7,
    big: 2 ** 40,
    double: 0.1,
    negativeZero: -0,
    nan: Number.NaN,
    date: new Date('2024-09-01T00:00:00Z'),
    yes: true,
    no: false,
    nothing: null,
    decimal: Decimal128.fromString('12.3400000000000000000001'),
    long: Long.fromString('-9007199254740993'),
    binary: new Binary(Buffer.from([1, 2, 3]), 0x80),
    uuid: new UUID(),
    timestamp: new Timestamp({ t: 5, i: 6 }),
    regex: new BSONRegExp('^a', 'i'),
    keys: [new MinKey(), new MaxKey()],
    tags: [{ group: 'env', key: 'stage', value: 'prod' }, 'plain', [1, [2]]],
    nested: { deeper: { deepest: { at: new Date(0) } } },
  };

  it('gives back what was encoded, with the same BSON types, in a new object each time', () => {
    const codec = new RecordCodec();
    const received = asReceived(doc);
    const bytes = Buffer.from(codec.encode(received));
    const first = codec.decode(bytes, 0);
    expect(serialize(first)).toEqual(serialize(received));
    expect(Object.is(first.negativeZero, -0)).toBe(true);
    expect(first.decimal).toBeInstanceOf(Decimal128);
    expect(first.long).toBeInstanceOf(Long);
    expect(codec.decode(bytes, 0)).not.toBe(first);
  });

  it('keeps repeated strings once (from their second sighting) and decodes documents of mixed shapes', () => {
    const codec = new RecordCodec();
    const shapes: Document[] = [{ a: 'USD', b: 1 }, { b: 2, a: 'USD' }, { a: 'USD' }, { a: 'EUR', c: { d: 'USD' } }];
    const lengths = shapes.map((shape) => codec.encode(shape).length);
    const encoded = shapes.map((shape) => Buffer.from(codec.encode(shape)));
    expect(lengths[2]).toBeLessThan(1 + 1 + 1 + 1 + 3 + 1);
    encoded.forEach((bytes, i) => expect(Object.entries(codec.decode(bytes, 0))).toEqual(Object.entries(shapes[i])));
  });

  it('keeps a field named __proto__ as data', () => {
    const codec = new RecordCodec();
    // The name written over another of the same length: the driver would not send it as data.
    const bytes = Buffer.from(serialize({ xxxxxxxxx: { b: 1 }, a: 1 }));
    bytes.write('__proto__', bytes.indexOf('xxxxxxxxx'), 'latin1');
    const received = deserializeDocument(bytes);
    const decoded = codec.decode(Buffer.from(codec.encode(received)), 0);
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
    expect(Object.keys(decoded)).toEqual(Object.keys(received));
  });

  describe('encodeBson (records straight from the bytes received)', () => {
    /** What the decoding path stores: the bytes decoded, then encoded. */
    const viaObject = (bytes: Uint8Array): Document => {
      const codec = new RecordCodec();
      return codec.decode(Buffer.from(codec.encode(decodeStoredDocument(Buffer.from(bytes)))), 0);
    };
    const direct = (codec: RecordCodec, bytes: Uint8Array): Document | null => {
      const record = codec.encodeBson(Buffer.from(bytes));
      return record ? codec.decode(Buffer.from(record), 0) : null;
    };
    const plain: Document[] = [
      {
        _id: new ObjectId(),
        text: 'café ☕',
        empty: '',
        small: 42,
        negative: -7,
        int: 2 ** 30,
        big: 2 ** 40,
        double: 0.1,
        whole: 3.0,
        negativeZero: -0,
        nan: Number.NaN,
        date: new Date('2024-09-01T00:00:00Z'),
        yes: true,
        no: false,
        nothing: null,
        tags: [{ group: 'env', key: 'stage', value: 'prod' }, 'plain', [1, [2]], []],
        nested: { deeper: { deepest: { at: new Date(0) } }, '2': 'two', '1': 'one' },
        many: Array.from({ length: 300 }, (_, i) => i),
      },
      { _id: 'text id', a: 'USD', b: 1 },
      { _id: { composite: 1, key: 'x' }, a: 'USD' },
    ];

    it('gives the record of the decoded document, documents after documents (shapes and strings remembered)', () => {
      const codec = new RecordCodec();
      for (let round = 0; round < 3; round++) {
        for (const doc of plain) {
          const bytes = serialize(doc);
          const decoded = direct(codec, bytes);
          expect(decoded).not.toBeNull();
          expect(serialize(decoded as Document)).toEqual(serialize(viaObject(bytes)));
          expect(Object.keys(decoded as Document)).toEqual(Object.keys(viaObject(bytes)));
        }
      }
      const again = direct(codec, serialize(plain[0])) as Document;
      expect(Object.is(again.negativeZero, -0)).toBe(true);
      expect(again.whole).toBe(3);
    });

    it('reads a date beyond the range of a Date as its decoding does (an invalid Date)', () => {
      const bytes = Buffer.from(serialize({ _id: 1, far: new Date(0) }));
      bytes.writeBigInt64LE(10n ** 17n, bytes.indexOf('far\0', 0, 'latin1') + 4);
      const decoded = direct(new RecordCodec(), bytes) as Document;
      expect(Number.isNaN((decoded.far as Date).getTime())).toBe(true);
      expect(Number.isNaN((viaObject(bytes).far as Date).getTime())).toBe(true);
    });

    it('puts a generated _id first', () => {
      const codec = new RecordCodec();
      const id = new ObjectId();
      const record = codec.encodeBson(Buffer.from(serialize({ a: 1, b: 'x' })), id) as Buffer;
      const decoded = codec.decode(Buffer.from(record), 0);
      expect(Object.keys(decoded)).toEqual(['_id', 'a', 'b']);
      expect((decoded._id as ObjectId).equals(id)).toBe(true);
      expect(codec.encodeBson(Buffer.from(serialize({ a: 1, _id: 2 })), new ObjectId())).toBeNull();
    });

    it('leaves to the decoding path what only bson reads, or what is not well formed', () => {
      const codec = new RecordCodec();
      const refused: Document[] = [
        { _id: 1, decimal: Decimal128.fromString('1.5') },
        { _id: 1, long: Long.fromNumber(5) },
        { _id: 1, binary: new Binary(Buffer.from([1])) },
        { _id: 1, regex: new BSONRegExp('a') },
        { _id: 1, ref: { $ref: 'c', $id: 1 } },
        { _id: [1, 2] },
        { _id: 1, ünïcode: 1 },
      ];
      for (const doc of refused) expect(codec.encodeBson(Buffer.from(serialize(doc)))).toBeNull();
      const repeated = Buffer.from(serialize({ _id: 1, aa: 1, ab: 2 }));
      repeated.write('aa', repeated.indexOf('ab'), 'latin1');
      expect(codec.encodeBson(repeated)).toBeNull();
      const invalidText = Buffer.from(serialize({ _id: 1, s: 'ab' }));
      invalidText[invalidText.indexOf('ab')] = 0xff;
      expect(codec.encodeBson(invalidText)).toBeNull();
      const truncated = Buffer.from(serialize({ _id: 1, s: 'abc' }));
      expect(codec.encodeBson(truncated.subarray(0, truncated.length - 1))).toBeNull();
      // And the codec goes on as before.
      const bytes = serialize(plain[1]);
      expect(serialize(direct(codec, bytes) as Document)).toEqual(serialize(viaObject(bytes)));
    });
  });

  it('decodes selected top-level fields alone, in the record order, absent ones absent', () => {
    const codec = new RecordCodec();
    const received = asReceived(doc);
    const bytes = Buffer.from(codec.encode(received));
    const selection = new FieldSelection(['tags', '_id', 'nested', 'long', 'missing']);
    const partial = codec.decodeFields(bytes, 0, selection);
    expect(Object.keys(partial)).toEqual(['_id', 'long', 'tags', 'nested']);
    for (const key of Object.keys(partial)) expect(serialize({ v: partial[key] })).toEqual(serialize({ v: received[key] }));
    expect(codec.decodeFields(bytes, 0, new FieldSelection([]))).toEqual({});
    // Every field skipped on the way: the last one alone.
    expect(codec.decodeFields(bytes, 0, new FieldSelection(['nested']))).toEqual({ nested: received.nested });
  });
});
