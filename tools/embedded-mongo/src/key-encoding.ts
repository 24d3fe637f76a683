import { Binary, Decimal128, Long, ObjectId, Timestamp } from 'bson';
import { bsonTypeOf, isPlainObject, type StringFold } from './bson-values';

/**
 * Order-preserving encoding of BSON values into "byte strings" (every char <= 0xFF, so V8 keeps
 * them one byte per char). Comparing two encodings with `<` orders the values as mongod's index
 * does: first by canonical type (MinKey, null, numbers, strings, objects, arrays, binary,
 * ObjectId, boolean, date, timestamp, regex, MaxKey), then by value. The encoding of one value
 * is prefix-free, so the concatenation of several encodings compares like the tuple of values:
 * a compound index key is just the concatenation of its fields' encodings.
 *
 * Keys are written into one reusable byte buffer and read out as a single flat string, so an
 * index entry costs one string allocation and no intermediate garbage.
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

/** Strings up to this length are copied char by char (native writes cost more for short ones). */
const SHORT = 48;

/** ASCII without NUL: its UTF-8 bytes are its chars and need no escaping. */
function isPlainAscii(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code === 0 || code > 0x7f) return false;
  }
  return true;
}

/** Writes encodings into a growable buffer; `take()` returns them as one flat string. */
export class KeyWriter {
  private buffer = Buffer.allocUnsafe(4096);
  private position = 0;
  private readonly view = new DataView(new ArrayBuffer(8));

  reset(): this {
    this.position = 0;
    return this;
  }

  get length(): number {
    return this.position;
  }

  take(): string {
    return this.buffer.toString('latin1', 0, this.position);
  }

  /** Returns the bytes written since `start` as a string (the writer keeps them). */
  since(start: number): string {
    return this.buffer.toString('latin1', start, this.position);
  }

  truncate(position: number): void {
    this.position = position;
  }

  private room(bytes: number): void {
    if (this.position + bytes <= this.buffer.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.position + bytes));
    this.buffer.copy(next, 0, 0, this.position);
    this.buffer = next;
  }

  byte(value: number): void {
    this.room(1);
    this.buffer[this.position++] = value;
  }

  /** Appends an already encoded key. */
  encoded(key: string): void {
    this.room(key.length);
    if (key.length > SHORT) {
      this.position += this.buffer.write(key, this.position, 'latin1');
      return;
    }
    // Short keys are copied here: cheaper than a call into the native latin1 writer.
    const buffer = this.buffer;
    let position = this.position;
    for (let i = 0; i < key.length; i++) buffer[position++] = key.charCodeAt(i);
    this.position = position;
  }

  /** Reverses the order of what was written since `start` (descending index fields). */
  complementSince(start: number): void {
    for (let i = start; i < this.position; i++) this.buffer[i] = 0xff - this.buffer[i];
  }

  /** 8 bytes whose order is the numeric order of the double (NaN below every number, -0 = 0). */
  private double(value: number): void {
    this.room(8);
    if (Number.isNaN(value)) {
      this.buffer.fill(0, this.position, this.position + 8);
      this.position += 8;
      return;
    }
    this.view.setFloat64(0, value === 0 ? 0 : value);
    const negative = (this.view.getUint8(0) & 0x80) !== 0;
    for (let i = 0; i < 8; i++) {
      const b = this.view.getUint8(i);
      this.buffer[this.position++] = negative ? 0xff - b : i === 0 ? b | 0x80 : b;
    }
  }

  /** A string as escaped UTF-8 (0x00 -> 0x00 0xFF) ended by 0x00 0x00: prefix-free, byte order. */
  text(value: string): void {
    if (value.length <= SHORT && this.shortAscii(value)) {
      // written by shortAscii
    } else if (isPlainAscii(value)) {
      this.room(value.length + 2);
      this.position += this.buffer.write(value, this.position, 'latin1');
    } else {
      const bytes = Buffer.from(value, 'utf8');
      this.room(bytes.length * 2 + 2);
      for (const b of bytes) {
        this.buffer[this.position++] = b;
        if (b === 0) this.buffer[this.position++] = 0xff;
      }
    }
    this.buffer[this.position++] = 0;
    this.buffer[this.position++] = 0;
  }

  /**
   * Writes a short ASCII string (no NUL) in one pass, leaving room for its terminator; false,
   * with nothing written, when it holds another char.
   */
  private shortAscii(value: string): boolean {
    this.room(value.length + 2);
    const buffer = this.buffer;
    let position = this.position;
    for (let i = 0; i < value.length; i++) {
      const code = value.charCodeAt(i);
      if (code === 0 || code > 0x7f) return false;
      buffer[position++] = code;
    }
    this.position = position;
    return true;
  }

  /** Numbers of every BSON type compare numerically; a suffix keeps values finer than a double apart. */
  private number(approximate: number, exact: string | null): void {
    this.byte(TypeTag.number);
    this.double(approximate);
    if (exact === null) this.byte(0);
    else {
      this.byte(1);
      this.room(exact.length + 1);
      this.position += this.buffer.write(exact, this.position, 'latin1');
      this.buffer[this.position++] = 0;
    }
  }

  private bytes(bytes: Uint8Array): void {
    this.room(bytes.length);
    this.buffer.set(bytes, this.position);
    this.position += bytes.length;
  }

  private uint32(n: number): void {
    this.room(4);
    this.buffer.writeUInt32BE(n >>> 0, this.position);
    this.position += 4;
  }

  /** The encoding of one value (type tag, then payload). Strings are folded for collation. */
  value(value: unknown, fold: StringFold): void {
    if (value === undefined || value === null) return this.byte(TypeTag.null);
    switch (typeof value) {
      case 'number':
        return this.number(value, null);
      case 'string':
        this.byte(TypeTag.string);
        return this.text(fold ? fold(value) : value);
      case 'boolean':
        this.byte(TypeTag.boolean);
        return this.byte(value ? 1 : 0);
      case 'bigint': {
        const n = Number(value);
        return this.number(n, Number.isSafeInteger(n) ? null : value.toString());
      }
      default:
        break;
    }
    if (value instanceof ObjectId) {
      this.byte(TypeTag.objectId);
      return this.bytes(value.id);
    }
    if (value instanceof Date) {
      this.byte(TypeTag.date);
      return this.double(value.getTime());
    }
    if (Array.isArray(value)) {
      this.byte(TypeTag.array);
      for (const item of value) this.value(item, fold);
      return this.byte(0);
    }
    if (isPlainObject(value)) {
      this.byte(TypeTag.object);
      for (const key of Object.keys(value)) {
        // mongod compares embedded documents element by element: type, then name, then value.
        const start = this.position;
        this.value(value[key], fold);
        const element = this.buffer.toString('latin1', start + 1, this.position);
        this.position = start + 1;
        this.text(key);
        this.encoded(element);
      }
      return this.byte(0);
    }
    // Timestamp extends Long in bson, so it is tested first.
    if (value instanceof Timestamp) {
      this.byte(TypeTag.timestamp);
      this.uint32(value.high);
      return this.uint32(value.low);
    }
    if (value instanceof Long) {
      const n = value.toNumber();
      return this.number(n, Number.isSafeInteger(n) ? null : value.toString());
    }
    if (value instanceof Decimal128) return this.decimal(value);
    if (value instanceof Binary) {
      const bytes = value.buffer.subarray(0, value.position);
      this.byte(TypeTag.binary);
      this.uint32(bytes.length);
      this.byte(value.sub_type);
      return this.bytes(bytes);
    }
    if (value instanceof RegExp) {
      this.byte(TypeTag.regex);
      this.text(value.source);
      return this.text(value.flags);
    }
    switch (bsonTypeOf(value)) {
      case 'MinKey':
        return this.byte(TypeTag.minKey);
      case 'MaxKey':
        return this.byte(TypeTag.maxKey);
      case 'BSONSymbol':
        this.byte(TypeTag.string);
        return this.text(String((value as { value: unknown }).value));
      default:
        this.byte(TypeTag.other);
        return this.text(String(value));
    }
  }

  private decimal(value: Decimal128): void {
    const text = value.toString();
    if (text === 'NaN' || text === '-NaN') return this.number(Number.NaN, null);
    const asNumber = Number(text);
    const digits = text
      .replace(/[eE][+-]?\d+$/, '')
      .replace(/\D/g, '')
      .replace(/^0+/, '');
    this.number(asNumber, Number.isFinite(asNumber) && digits.length <= 15 ? null : text);
  }
}

const shared = new KeyWriter();

/** The encoding of one value as a string. */
export function encodeValue(value: unknown, fold: StringFold = null): string {
  shared.reset().value(value, fold);
  return shared.take();
}

/** Reverses the order of an encoding (for descending index fields); still prefix-free. */
export function complement(encoded: string): string {
  shared.reset().encoded(encoded);
  shared.complementSince(0);
  return shared.take();
}
