import { Binary, BSONRegExp, Decimal128, Long, MaxKey, MinKey, ObjectId, serialize, Timestamp, UUID } from 'bson';
import type { Document } from './bson-values';
import { RecordCodec } from './record-codec';
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
});
