import { Binary, Decimal128, Long, ObjectId, serialize } from 'bson';
import fc from 'fast-check';
import { decodeStoredDocument } from './document-decoder';
import { StringPool } from './string-pool';
import { deserializeDocument } from './wire-protocol';

/** Values of the types read without bson. */
const commonLeaf = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.string({ minLength: 65, maxLength: 80 }),
  fc.constantFrom('aws', 'default', '\ufffd', 'é'),
  fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.date({ noInvalidDate: true }),
  fc.uint8Array({ minLength: 12, maxLength: 12 }).map((bytes) => new ObjectId(Buffer.from(bytes))),
);
const leaf = fc.oneof(
  commonLeaf,
  // Types bson decodes instead.
  fc.integer().map((n) => Long.fromNumber(n)),
  fc.constant(Decimal128.fromString('1.5')),
  fc.uint8Array({ maxLength: 4 }).map((bytes) => new Binary(Buffer.from(bytes))),
);
const commonName = fc.oneof(
  fc.constantFrom('a', 'b', 'tenantId', '0', ''),
  fc.string({ maxLength: 4 }).filter((text) => !text.includes('\0') && !text.startsWith('$')),
);
const name = fc.oneof(
  commonName,
  fc.constantFrom('$ref', '$id'),
  fc.string({ unit: 'binary', maxLength: 4 }).filter((text) => !text.includes('\0')),
);

function documents(leaves: fc.Arbitrary<unknown>, names: fc.Arbitrary<string>): fc.Arbitrary<Record<string, unknown>> {
  const { value } = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaves, tie('object'), fc.array(tie('value'), { maxLength: 4 })),
    object: fc.dictionary(names, tie('value'), { maxKeys: 5 }),
  }));
  return fc.dictionary(names, value, { maxKeys: 8 });
}

describe('decodeStoredDocument', () => {
  it('decodes every document as bson does with the wire options, field order and types included', () => {
    // Documents read without bson, then documents of any type (mostly left to bson).
    for (const documentArbitrary of [documents(commonLeaf, commonName), documents(leaf, name)]) {
      fc.assert(
        fc.property(documentArbitrary, (doc) => {
          let bytes: Buffer;
          try {
            bytes = Buffer.from(serialize(doc));
          } catch {
            // Not a document bson writes (e.g. a DBRef-like `$id` + `$ref` without a string `$ref`).
            return;
          }
          const expected = deserializeDocument(bytes);
          const decoded = decodeStoredDocument(bytes);
          expect(decoded).toEqual(expected);
          // Field order and BSON types (a DBRef-like document comes back as a DBRef, which is not written as a document).
          if (Object.getPrototypeOf(expected) === Object.prototype) {
            expect(Buffer.from(serialize(decoded)).equals(Buffer.from(serialize(expected)))).toBe(true);
          }
        }),
        { numRuns: 500 },
      );
    }
  });

  it('reads the pooled strings of ASCII bytes, and leaves the others to be decoded', () => {
    const pool = new StringPool();
    const bytes = Buffer.from('xx aws é aws');
    expect(pool.fromAscii(bytes, 3, 6)).toBe('aws');
    expect(pool.fromAscii(bytes, 10, 13)).toBe('aws');
    expect(pool.fromAscii(bytes, 7, 9)).toBeNull();
    expect(pool.fromAscii(Buffer.alloc(65, 0x61), 0, 65)).toBeNull();
    expect(pool.intern('aws')).toBe('aws');
    expect(pool.intern('é')).toBe('é');
    const doc = { a: 'aws', list: ['é', { b: 'x' }] };
    pool.share(doc);
    expect(doc).toEqual({ a: 'aws', list: ['é', { b: 'x' }] });
  });

  it('fails as bson does on bytes that are not a document or not valid UTF-8', () => {
    const bytes = Buffer.from(serialize({ s: 'abc' }));
    bytes[bytes.indexOf('abc') + 1] = 0xff;
    expect(() => decodeStoredDocument(bytes)).toThrow(expect.objectContaining({ message: expect.any(String) }));
    expect(() => deserializeDocument(bytes)).toThrow();
    const cut = Buffer.from(serialize({ a: 1, b: 'x' })).subarray(0, 9);
    expect(() => decodeStoredDocument(cut)).toThrow();
  });
});
