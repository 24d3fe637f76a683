import {
  Binary,
  BSONRegExp,
  Code,
  Decimal128,
  deserialize,
  Double,
  Int32,
  Long,
  MaxKey,
  MinKey,
  ObjectId,
  serialize,
  Timestamp,
} from 'bson';
import { moveIdFirst } from './bson-bytes';

const options = { promoteLongs: false, promoteValues: true, promoteBuffers: false, bsonRegExp: false } as const;

describe('moveIdFirst', () => {
  it('moves a later _id element first, keeping the other elements and their order, past every BSON type', () => {
    const id = new ObjectId();
    const doc = {
      d: new Double(1.5),
      s: 'text',
      o: { nested: [1, 'two', { three: 3 }] },
      a: [1, 2],
      b: new Binary(Buffer.from('bytes'), 4),
      u: null,
      oid: new ObjectId(),
      t: true,
      date: new Date(0),
      r: new BSONRegExp('a.c', 'i'),
      c: new Code('x'),
      i: new Int32(7),
      ts: new Timestamp({ t: 1, i: 2 }),
      l: Long.fromNumber(9),
      dec: Decimal128.fromString('1.25'),
      min: new MinKey(),
      max: new MaxKey(),
      _id: id,
      after: 'last',
    };
    // Inside a larger buffer, as a document of a received message is: the bytes around it stay.
    const encoded = Buffer.from(serialize(doc));
    const message = Buffer.concat([Buffer.from('head'), encoded, Buffer.from('tail')]);
    const bytes = message.subarray(4, 4 + encoded.length);
    expect(moveIdFirst(bytes)).toBe(true);
    const { _id, ...rest } = doc;
    expect(bytes.equals(Buffer.from(serialize({ _id, ...rest })))).toBe(true);
    expect(Object.keys(deserialize(bytes, options))[0]).toBe('_id');
    expect(message.subarray(0, 4).toString()).toBe('head');
    expect(message.subarray(4 + encoded.length).toString()).toBe('tail');
  });

  it('leaves the bytes as they are when _id is first, without _id or when they do not read to the end', () => {
    for (const doc of [
      { _id: 1, a: 2 },
      { a: 1, _idx: 2, id: 3 },
    ]) {
      const bytes = Buffer.from(serialize(doc));
      const before = Buffer.from(bytes);
      expect(moveIdFirst(bytes)).toBe('_id' in doc);
      expect(bytes.equals(before)).toBe(true);
    }
    const cut = Buffer.from(serialize({ a: 'x', _id: 1 })).subarray(0, -3);
    const before = Buffer.from(cut);
    expect(moveIdFirst(cut)).toBe(false);
    expect(cut.equals(before)).toBe(true);
  });
});
