import { ObjectId } from 'bson';
import type { Document } from './bson-values';
import { storedStrings } from './string-pool';
import { deserializeDocument } from './wire-protocol';

/** What a document of a type not read here, or not well formed, gives: bson decodes it instead. */
const UNREAD = Symbol('unread');
type Read = Document | unknown[] | typeof UNREAD;

const TWO_TO_32 = 4294967296;

const int32 = (bytes: Buffer, at: number): number => bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16) | (bytes[at + 3] << 24);

/**
 * Decodes a document to store, as `deserializeDocument` (bson with the wire's options) does, its
 * strings taken from the pool of stored strings (string-pool.ts): a repeated value is found from
 * its bytes, without a new string, and field names the same way. Only documents made of the
 * common types are read here (double, string, document, array, ObjectId, boolean, date, null,
 * int32; ASCII names, none starting with `$`, no `__proto__`); any other document, or one not
 * well formed, is decoded by bson, whose errors are the wire's.
 */
export function decodeStoredDocument(bytes: Buffer): Document {
  const read = bytes.length >= 5 && int32(bytes, 0) === bytes.length ? readObject(bytes, 0, bytes.length, false) : UNREAD;
  if (read !== UNREAD) return read as Document;
  const doc = deserializeDocument(bytes);
  storedStrings.share(doc);
  return doc;
}

/** The document or array whose bytes start at `start` and lie within `limit`. */
function readObject(bytes: Buffer, start: number, limit: number, isArray: boolean): Read {
  const size = int32(bytes, start);
  const end = start + size;
  if (size < 5 || end > limit || bytes[end - 1] !== 0) return UNREAD;
  const object: Document | unknown[] = isArray ? [] : {};
  let at = start + 4;
  for (let position = 0; ; position++) {
    const type = bytes[at++];
    if (type === 0) return at === end ? object : UNREAD;
    const nameStart = at;
    while (at < end && bytes[at] !== 0) at++;
    if (at >= end) return UNREAD;
    let name: string | number = position;
    if (!isArray) {
      const pooled = storedStrings.fromAscii(bytes, nameStart, at);
      if (pooled === null || pooled === '__proto__' || pooled.charCodeAt(0) === 0x24) return UNREAD;
      name = pooled;
    }
    at++;
    let value: unknown;
    switch (type) {
      case 0x01:
        if (at + 8 > end) return UNREAD;
        value = bytes.readDoubleLE(at);
        at += 8;
        break;
      case 0x02: {
        const length = int32(bytes, at);
        const from = at + 4;
        const to = from + length - 1;
        if (length <= 0 || to >= end || bytes[to] !== 0) return UNREAD;
        const text = readString(bytes, from, to);
        if (text === null) return UNREAD;
        value = text;
        at = to + 1;
        break;
      }
      case 0x03:
      case 0x04: {
        const inner = readObject(bytes, at, end, type === 0x04);
        if (inner === UNREAD) return UNREAD;
        value = inner;
        at += int32(bytes, at);
        break;
      }
      case 0x07: {
        if (at + 12 > end) return UNREAD;
        const id = Buffer.allocUnsafe(12);
        bytes.copy(id, 0, at, at + 12);
        value = new ObjectId(id);
        at += 12;
        break;
      }
      case 0x08:
        if (bytes[at] > 1) return UNREAD;
        value = bytes[at++] === 1;
        break;
      case 0x09:
        if (at + 8 > end) return UNREAD;
        value = new Date(int32(bytes, at + 4) * TWO_TO_32 + (int32(bytes, at) >>> 0));
        at += 8;
        break;
      case 0x0a:
        value = null;
        break;
      case 0x10:
        if (at + 4 > end) return UNREAD;
        value = int32(bytes, at);
        at += 4;
        break;
      default:
        return UNREAD;
    }
    if (isArray) (object as unknown[]).push(value);
    else (object as Document)[name] = value;
  }
}

/**
 * The string of UTF-8 bytes [from, to), pooled when short (the pool decides); null when the decoding replaced some
 * bytes (not valid UTF-8, or a U+FFFD written as such: bson tells them apart).
 */
function readString(bytes: Buffer, from: number, to: number): string | null {
  const pooled = storedStrings.fromAscii(bytes, from, to);
  if (pooled !== null) return pooled;
  const text = bytes.toString('utf8', from, to);
  if (text.includes('\ufffd')) return null;
  return storedStrings.intern(text);
}
