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
import { idFirstBytes } from './bson-bytes';

const options = { promoteLongs: false, promoteValues: true, promoteBuffers: false, bsonRegExp: false } as const;

describe('idFirstBytes', () => {
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
    const moved = idFirstBytes(Buffer.from(serialize(doc)));
    expect(moved).not.toBeNull();
    const { _id, ...rest } = doc;
    expect(Buffer.from(moved as Uint8Array).equals(Buffer.from(serialize({ _id, ...rest })))).toBe(true);
    expect(Object.keys(deserialize(moved as Uint8Array, options))[0]).toBe('_id');
  });

  it('returns the same bytes when _id is first, null without _id or for bytes that do not read to the end', () => {
    const first = Buffer.from(serialize({ _id: 1, a: 2 }));
    expect(idFirstBytes(first)).toBe(first);
    expect(idFirstBytes(Buffer.from(serialize({ a: 1, _idx: 2, id: 3 })))).toBeNull();
    const cut = Buffer.from(serialize({ a: 'x', _id: 1 }));
    expect(idFirstBytes(cut.subarray(0, cut.length - 3))).toBeNull();
  });
});
