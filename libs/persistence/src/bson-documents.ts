import { Types } from 'mongoose';

/**
 * Encodes plain documents into BSON byte for byte as the driver's serializer (`bson`'s `serialize`,
 * with the options of an insert command: no key checks) does, at about a third of its CPU. Line
 * items are encoded in the service's process before they reach the database; `serialize` spends
 * most of its time on its generic checks per field (a regular expression run on every key, the
 * key looked up by name, a `toBSON` probe on every value) and, through `insertMany`, sizes every
 * document a second time first (`calculateObjectSize`). This encoder handles the values line items
 * and other plain documents hold (strings, numbers, booleans, null, Dates, ObjectIds, arrays and
 * plain objects) and reads each object's fields with `for…in`, which V8 serves from the object's
 * own layout; a document with anything else (undefined, a Decimal128, a Long, a Buffer, a class
 * instance, a key holding a NUL) is refused, and the caller lets the driver encode it.
 */

const STRING = 0x02;
const DOCUMENT = 0x03;
const ARRAY = 0x04;
const OBJECT_ID = 0x07;
const BOOLEAN = 0x08;
const DATE = 0x09;
const NULL = 0x0a;
const INT32 = 0x10;
const DOUBLE = 0x01;
const INT32_MIN = -0x80000000;
const INT32_MAX = 0x7fffffff;
const TWO_TO_32 = 4294967296;
/** The driver refuses deeper documents than this (`bson` itself has no limit, but a line item is flat). */
const MAX_DEPTH = 64;
/**
 * Strings up to this length are copied by a loop while they are ASCII (a call into Buffer's native
 * write costs more than the copy): 5.5 → 4.4 µs a line item against 8 (2026-11-28, 45 fields).
 */
const SHORT_STRING = 64;

/** `_id` as an element's name, and what an ObjectId `_id` element takes: type, name, 12 bytes. */
const ID_KEY = new Uint8Array(Buffer.from('_id\0', 'latin1'));
const ID_ELEMENT_BYTES = 1 + ID_KEY.length + 12;

/** Thrown inside the encoder for a value it leaves to the driver; never leaves this module. */
class Refused extends Error {}
const REFUSED = new Refused('not encoded here');

/** A key's bytes with their NUL, by key: documents of one collection share their keys. */
const keyBytes = new Map<string, Uint8Array>();
const MAX_KEYS = 10_000;
/** The keys of array elements ('0', '1', …). */
const indexKeys: string[] = [];

function bytesOfKey(key: string): Uint8Array {
  let bytes = keyBytes.get(key);
  if (bytes === undefined) {
    if (key.includes('\0')) throw REFUSED;
    bytes = new Uint8Array(Buffer.from(`${key}\0`, 'utf8'));
    if (keyBytes.size < MAX_KEYS) keyBytes.set(key, bytes);
  }
  return bytes;
}

function indexKey(index: number): string {
  return indexKeys[index] ?? (index < 1000 ? (indexKeys[index] = String(index)) : String(index));
}

function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value) as unknown;
  return (
    (prototype === Object.prototype || prototype === null) &&
    (value as { _bsontype?: unknown })._bsontype === undefined &&
    typeof (value as { toBSON?: unknown }).toBSON !== 'function'
  );
}

class Encoder {
  private buffer: Buffer;
  private at = 0;

  constructor(size: number) {
    this.buffer = Buffer.allocUnsafe(size);
  }

  /** The bytes written so far. */
  result(): Buffer {
    return this.buffer.subarray(0, this.at);
  }

  get offset(): number {
    return this.at;
  }

  /** A BSON document as it is, with an ObjectId `_id` written first (the document must have none). */
  documentWithId(bson: Uint8Array, id: Types.ObjectId): void {
    const size = bson.length + ID_ELEMENT_BYTES;
    this.ensure(size);
    const start = this.at;
    this.buffer.writeInt32LE(size, start);
    this.at += 4;
    this.key(OBJECT_ID, ID_KEY);
    this.buffer.set(id.id, this.at);
    this.at += 12;
    this.buffer.set(bson.subarray(4), this.at);
    this.at = start + size;
  }

  /** Forgets what was written past `offset` (a document refused halfway). */
  rewind(offset: number): void {
    this.at = offset;
  }

  private ensure(extra: number): void {
    if (this.at + extra <= this.buffer.length) return;
    let size = this.buffer.length * 2;
    while (size < this.at + extra) size *= 2;
    const grown = Buffer.allocUnsafe(size);
    this.buffer.copy(grown, 0, 0, this.at);
    this.buffer = grown;
  }

  document(doc: object, depth: number): void {
    if (depth > MAX_DEPTH || !isPlainObject(doc)) throw REFUSED;
    this.ensure(5);
    const start = this.at;
    this.at += 4;
    const fields = doc as Record<string, unknown>;
    // own enumerable keys in their order, as Object.keys gives them (a plain object inherits none)
    for (const key in fields) {
      const value = fields[key];
      if (value === undefined) throw REFUSED;
      this.element(bytesOfKey(key), value, depth);
    }
    this.end(start);
  }

  private array(values: readonly unknown[], depth: number): void {
    if (depth > MAX_DEPTH) throw REFUSED;
    this.ensure(5);
    const start = this.at;
    this.at += 4;
    for (let index = 0; index < values.length; index++) {
      const value = values[index];
      if (value === undefined) throw REFUSED;
      this.element(bytesOfKey(indexKey(index)), value, depth);
    }
    this.end(start);
  }

  private end(start: number): void {
    this.ensure(1);
    this.buffer[this.at++] = 0;
    this.buffer.writeInt32LE(this.at - start, start);
  }

  private element(key: Uint8Array, value: unknown, depth: number): void {
    switch (typeof value) {
      case 'string':
        this.key(STRING, key);
        this.string(value);
        return;
      case 'number':
        // bson's rule: an int32 for a safe integer in its range (never -0), a double otherwise
        if (Number.isSafeInteger(value) && value <= INT32_MAX && value >= INT32_MIN && !Object.is(value, -0)) {
          this.key(INT32, key);
          this.ensure(4);
          this.at = this.buffer.writeInt32LE(value, this.at);
        } else {
          this.key(DOUBLE, key);
          this.ensure(8);
          this.at = this.buffer.writeDoubleLE(value, this.at);
        }
        return;
      case 'boolean':
        this.key(BOOLEAN, key);
        this.ensure(1);
        this.buffer[this.at++] = value ? 1 : 0;
        return;
      case 'object':
        this.object(key, value, depth);
        return;
      default:
        throw REFUSED;
    }
  }

  private object(key: Uint8Array, value: object | null, depth: number): void {
    if (value === null) {
      this.key(NULL, key);
    } else if (value instanceof Date) {
      const time = value.getTime();
      if (Number.isNaN(time)) throw REFUSED;
      this.key(DATE, key);
      this.ensure(8);
      // the milliseconds as a little-endian int64 (bson: Long.fromNumber, low bits then high bits)
      const high = Math.floor(time / TWO_TO_32);
      this.buffer.writeUInt32LE(time - high * TWO_TO_32, this.at);
      this.at = this.buffer.writeInt32LE(high, this.at + 4);
    } else if (value instanceof Types.ObjectId) {
      this.key(OBJECT_ID, key);
      this.ensure(12);
      const id = value.id;
      for (let index = 0; index < 12; index++) this.buffer[this.at++] = id[index];
    } else if (Array.isArray(value)) {
      this.key(ARRAY, key);
      this.array(value, depth + 1);
    } else {
      this.key(DOCUMENT, key);
      this.document(value, depth + 1);
    }
  }

  private key(type: number, key: Uint8Array): void {
    this.ensure(key.length + 1);
    const buffer = this.buffer;
    let at = this.at;
    buffer[at++] = type;
    for (let index = 0; index < key.length; index++) buffer[at++] = key[index];
    this.at = at;
  }

  private string(value: string): void {
    const length = value.length;
    this.ensure(length * 3 + 5);
    const buffer = this.buffer;
    const start = this.at + 4;
    let at = start;
    let copied = 0;
    if (length <= SHORT_STRING)
      for (; copied < length; copied++) {
        const code = value.charCodeAt(copied);
        if (code > 0x7f) break;
        buffer[at++] = code;
      }
    if (copied < length) at = start + buffer.write(value, start, 'utf8');
    buffer.writeInt32LE(at - start + 1, this.at);
    buffer[at++] = 0;
    this.at = at;
  }
}

/**
 * Documents encoded one after another into one growing buffer as they come. A bulk load keeps
 * these bytes instead of its objects, which are then garbage at once: a batch of line items kept
 * as objects until its insert outlived V8's young generation, and collecting them from the old
 * one was the largest cost of an import (docs/benchmarks.md).
 */
export class DocumentBytes {
  private readonly encoder: Encoder;
  private readonly ends: number[] = [];

  constructor(estimatedBytes = 64 * 1024) {
    this.encoder = new Encoder(Math.max(1024, estimatedBytes));
  }

  get length(): number {
    return this.ends.length;
  }

  /**
   * Encodes a document after the others. False, with nothing kept, when it holds a value this
   * encoder leaves to the driver or its BSON is over `maxBytes`.
   */
  push(doc: object, maxBytes = Number.POSITIVE_INFINITY): boolean {
    const start = this.encoder.offset;
    try {
      this.encoder.document(doc, 0);
    } catch (error) {
      if (!(error instanceof Refused)) throw error;
      this.encoder.rewind(start);
      return false;
    }
    if (this.encoder.offset - start > maxBytes) {
      this.encoder.rewind(start);
      return false;
    }
    this.ends.push(this.encoder.offset);
    return true;
  }

  /** A document already in BSON (without `_id`), with `id` as its `_id`, first (where the database keeps it). */
  pushWithId(bson: Uint8Array, id: Types.ObjectId): void {
    this.encoder.documentWithId(bson, id);
    this.ends.push(this.encoder.offset);
  }

  /** Each document's BSON, as views of the one buffer. */
  views(): Buffer[] {
    const bytes = this.encoder.result();
    const views = new Array<Buffer>(this.ends.length);
    let start = 0;
    for (let index = 0; index < this.ends.length; index++) {
      views[index] = bytes.subarray(start, this.ends[index]);
      start = this.ends[index];
    }
    return views;
  }
}

/**
 * The BSON of each document (views of one buffer), as `bson`'s `serialize` would write them; or
 * undefined when a document holds a value this encoder leaves to the driver.
 */
export function encodeDocuments(docs: readonly object[], estimatedBytes = 2048): Buffer[] | undefined {
  const bytes = new DocumentBytes(docs.length * estimatedBytes);
  for (const doc of docs) if (!bytes.push(doc)) return undefined;
  return bytes.views();
}
