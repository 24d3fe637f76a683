/**
 * Reading the top level of a BSON document without decoding it: enough to move its `_id`
 * element to the front, so a document received with `_id` last (the driver appends the `_id`
 * it generates) is journaled from its received bytes instead of being encoded again. The move
 * is done in place: a copy per document would be a buffer outside the JavaScript heap, and
 * every 64 MiB of those makes V8 run a full garbage collection.
 */

const int32 = (bytes: Uint8Array, at: number): number =>
  (bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16) | (bytes[at + 3] << 24)) >>> 0;

function cstringEnd(bytes: Uint8Array, from: number, limit: number): number {
  for (let at = from; at < limit; at++) if (bytes[at] === 0) return at;
  return -1;
}

/** Bytes taken by the value of an element of BSON `type` starting at `at`; -1 for a type not known here. */
function valueLength(bytes: Uint8Array, type: number, at: number, limit: number): number {
  switch (type) {
    case 0x01: // double
    case 0x09: // date
    case 0x11: // timestamp
    case 0x12: // int64
      return 8;
    case 0x02: // string
    case 0x0d: // JavaScript code
    case 0x0e: // symbol
      return 4 + int32(bytes, at);
    case 0x03: // document
    case 0x04: // array
    case 0x0f: // code with scope
      return int32(bytes, at);
    case 0x05: // binary: length, subtype, bytes
      return 5 + int32(bytes, at);
    case 0x06: // undefined
    case 0x0a: // null
    case 0xff: // MinKey
    case 0x7f: // MaxKey
      return 0;
    case 0x07: // ObjectId
      return 12;
    case 0x08: // boolean
      return 1;
    case 0x0b: {
      // regular expression: pattern and options, two C strings
      const pattern = cstringEnd(bytes, at, limit);
      const options = pattern < 0 ? -1 : cstringEnd(bytes, pattern + 1, limit);
      return options < 0 ? -1 : options + 1 - at;
    }
    case 0x0c: // DBPointer: string, then an ObjectId
      return 4 + int32(bytes, at) + 12;
    case 0x10: // int32
      return 4;
    case 0x13: // Decimal128
      return 16;
    default:
      return -1;
  }
}

/** Where an `_id` element is set aside while the others move (most are an ObjectId's 17 bytes). */
const idScratch = Buffer.allocUnsafeSlow(256);

/**
 * Moves the document's top-level `_id` element first, the other elements keeping their order,
 * rewriting `bytes` in place. False, with `bytes` unchanged, when there is no `_id` or the bytes
 * do not read to the end.
 */
export function moveIdFirst(bytes: Buffer): boolean {
  const total = bytes.length >= 5 ? int32(bytes, 0) : 0;
  if (total !== bytes.length) return false;
  let at = 4;
  while (at < total - 1) {
    const start = at;
    const type = bytes[at];
    const nameEnd = cstringEnd(bytes, at + 1, total);
    if (nameEnd < 0) return false;
    const isId = nameEnd - at === 4 && bytes[at + 1] === 0x5f && bytes[at + 2] === 0x69 && bytes[at + 3] === 0x64;
    const length = valueLength(bytes, type, nameEnd + 1, total);
    if (length < 0) return false;
    at = nameEnd + 1 + length;
    if (at > total - 1) return false;
    if (!isId) continue;
    if (start === 4) return true;
    // The `_id` element aside, the elements before it shifted over its place, then it goes first.
    const size = at - start;
    const aside = size <= idScratch.length ? idScratch : Buffer.allocUnsafe(size);
    bytes.copy(aside, 0, start, at);
    bytes.copyWithin(4 + size, 4, start);
    aside.copy(bytes, 4, 0, size);
    return true;
  }
  return false;
}
