import { Binary, Decimal128, Long, ObjectId, Timestamp } from 'bson';
import { bsonTypeOf, isPlainObject, type StringFold } from './bson-values';

/**
 * Order-preserving encoding of BSON values into "byte strings" (every char <= 0xFF, so V8 keeps
 * them one byte per char). Comparing two encodings with `<` orders the values as mongod's index
 * does: first by canonical type (MinKey, null, numbers, strings, objects, arrays, binary,
 * ObjectId, boolean, date, timestamp, regex, MaxKey), then by value. The encoding of one value
 * is prefix-free, so the concatenation of several encodings compares like the tuple of values:
 * a compound index key is just the concatenation of its fields' encodings.
 */
export const TypeTag = {
  minKey: 0x0a,
  null: 0x14,
  number: 0x1e,
  string: 0x28,
  object: 0x32,
  array: 0x3c,
  binary: 0x46,
  objectId: 0x50,
  boolean: 0x5a,
  date: 0x64,
  timestamp: 0x6e,
  regex: 0x78,
  other: 0xe0,
  maxKey: 0xf0,
} as const;

/** Greater than every char of an encoding: `prefix + PREFIX_END` bounds all keys starting with prefix. */
export const PREFIX_END = '\u0100';

const tagChar = Object.fromEntries(Object.entries(TypeTag).map(([name, tag]) => [name, String.fromCharCode(tag)])) as Record<
  keyof typeof TypeTag,
  string
>;

const scratch = new DataView(new ArrayBuffer(8));
const ASCII_WITHOUT_NUL = /^[\x01-\x7f]*$/;

/** 8 chars whose order is the numeric order of the double (NaN below every number, -0 = 0). */
function sortableDouble(value: number): string {
  if (Number.isNaN(value)) return '\0\0\0\0\0\0\0\0';
  scratch.setFloat64(0, value === 0 ? 0 : value);
  const high = scratch.getUint32(0);
  const low = scratch.getUint32(4);
  const negative = high >>> 31 === 1;
  const h = negative ? ~high >>> 0 : (high | 0x80000000) >>> 0;
  const l = negative ? ~low >>> 0 : low;
  return String.fromCharCode(h >>> 24, (h >>> 16) & 0xff, (h >>> 8) & 0xff, h & 0xff, l >>> 24, (l >>> 16) & 0xff, (l >>> 8) & 0xff, l & 0xff);
}

/** A string as escaped UTF-8 bytes (0x00 -> 0x00 0xFF) ended by 0x00 0x00: prefix-free, byte order. */
function encodeText(text: string): string {
  if (ASCII_WITHOUT_NUL.test(text)) return `${text}\0\0`;
  const bytes = Buffer.from(text, 'utf8').toString('latin1');
  return `${bytes.replace(/\0/g, '\0\u00ff')}\0\0`;
}

/** Numbers of every BSON type compare numerically; a suffix keeps values finer than a double apart. */
function encodeNumber(approximate: number, exact: string | null): string {
  return exact === null ? `${sortableDouble(approximate)}\0` : `${sortableDouble(approximate)}\u0001${exact}\0`;
}

function decimalNumber(value: Decimal128): string {
  const text = value.toString();
  const asNumber = Number(text);
  const digits = text
    .replace(/[eE][+-]?\d+$/, '')
    .replace(/\D/g, '')
    .replace(/^0+/, '');
  if (text === 'NaN' || text === '-NaN') return encodeNumber(Number.NaN, null);
  if (Number.isFinite(asNumber) && digits.length <= 15) return encodeNumber(asNumber, null);
  return encodeNumber(asNumber, text);
}

function fixedBytes(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}

function uint32(n: number): string {
  return String.fromCharCode(n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);
}

/** The encoding of one value (type tag, then payload). Strings are folded for collation. */
export function encodeValue(value: unknown, fold: StringFold = null): string {
  if (value === undefined || value === null) return tagChar.null;
  switch (typeof value) {
    case 'number':
      return tagChar.number + encodeNumber(value, null);
    case 'string':
      return tagChar.string + encodeText(fold ? fold(value) : value);
    case 'boolean':
      return tagChar.boolean + (value ? '\u0001' : '\0');
    case 'bigint': {
      const n = Number(value);
      return tagChar.number + encodeNumber(n, Number.isSafeInteger(n) ? null : value.toString());
    }
    default:
      break;
  }
  if (Array.isArray(value)) {
    let out = tagChar.array;
    for (const item of value) out += encodeValue(item, fold);
    return `${out}\0`;
  }
  if (value instanceof Date) return tagChar.date + sortableDouble(value.getTime());
  if (isPlainObject(value)) {
    let out = tagChar.object;
    for (const key of Object.keys(value)) {
      const element = encodeValue(value[key], fold);
      // mongod compares embedded documents element by element: type, then name, then value.
      out += element[0] + encodeText(key) + element.slice(1);
    }
    return `${out}\0`;
  }
  if (value instanceof ObjectId) return tagChar.objectId + fixedBytes(value.id);
  // Timestamp extends Long in bson, so it is tested first.
  if (value instanceof Timestamp) return tagChar.timestamp + uint32(value.high) + uint32(value.low);
  if (value instanceof Long) {
    const n = value.toNumber();
    return tagChar.number + encodeNumber(n, Number.isSafeInteger(n) ? null : value.toString());
  }
  if (value instanceof Decimal128) return tagChar.number + decimalNumber(value);
  if (value instanceof Binary) {
    const bytes = value.buffer.subarray(0, value.position);
    return tagChar.binary + uint32(bytes.length) + String.fromCharCode(value.sub_type) + fixedBytes(bytes);
  }
  if (value instanceof RegExp) return tagChar.regex + encodeText(value.source) + encodeText(value.flags);
  switch (bsonTypeOf(value)) {
    case 'MinKey':
      return tagChar.minKey;
    case 'MaxKey':
      return tagChar.maxKey;
    case 'BSONSymbol':
      return tagChar.string + encodeText(String((value as { value: unknown }).value));
    default:
      return tagChar.other + encodeText(String(value));
  }
}

/** The tag char that starts every encoding of values of the same canonical type as `value`. */
export function typeTagOf(value: unknown): string {
  return encodeValue(value)[0];
}

/** Reverses the order of an encoding (for descending index fields); still prefix-free. */
export function complement(encoded: string): string {
  let out = '';
  for (let i = 0; i < encoded.length; i++) out += String.fromCharCode(0xff - encoded.charCodeAt(i));
  return out;
}
