import { Decimal128, deserialize, Long, ObjectId, serialize } from 'bson';
import { bsonTypeOf, isPlainObject, type Document } from './bson-values';
import { storedStrings } from './string-pool';
import { StringDictionary } from './string-dictionary';

/** The kinds of value of a record (one byte each, before the value). */
const Tag = {
  null: 0,
  false: 1,
  true: 2,
  /** An integer of up to 31 bits, zigzag varint. */
  smallInt: 3,
  double: 4,
  /** varint byte length, UTF-8 bytes. */
  string: 5,
  /** varint number of a string of the collection's dictionary. */
  dictionaryString: 6,
  /** Milliseconds as a double. */
  date: 7,
  objectId: 8,
  /** varint shape number, then the values of the shape's fields. */
  document: 9,
  /** varint length, then the elements. */
  array: 10,
  decimal128: 11,
  long: 12,
  /** Any other BSON value: varint byte length, then the BSON document `{ v: value }`. */
  bson: 13,
  undefined: 14,
} as const;

const DESERIALIZE_OPTIONS = { promoteLongs: false, promoteValues: true, promoteBuffers: false, bsonRegExp: false } as const;
const MAX_DEPTH = 100;

/** Nesting beyond which `encodeBson` leaves a document to the decoding path. */
const MAX_BSON_DEPTH = 50;

/** A set of field names in order, numbered: reached from the previous field's shape by the next name. */
interface Shape {
  id: number;
  fields: string[];
  next: Map<string, Shape>;
  /**
   * Whether a document read straight from BSON may have this shape's last field: not a name bson
   * gives a meaning to (`$ref`, `$id`… of a DBRef) nor `__proto__`.
   */
  direct: boolean;
  /** The last field's name as ASCII bytes (null if it is not ASCII). */
  name: Buffer | null;
  /** The shape a document read from BSON went to from this one last time: tried first (by bytes) the next time. */
  likely: Shape | null;
  /**
   * The last field's value in the last document read from BSON, when it was a short string of the
   * dictionary: its UTF-8 bytes (the first `lastStringLength` of this buffer) and its number.
   */
  lastString: Buffer | null;
  lastStringLength: number;
  lastStringId: number;
}

/** Strings up to this many bytes are remembered by their field (Shape.lastString). */
const LAST_STRING_BYTES = 64;

function newShape(id: number, fields: string[]): Shape {
  const last = fields[fields.length - 1] ?? '';
  return {
    id,
    fields,
    next: new Map(),
    direct: last.charCodeAt(0) !== 0x24 && last !== '__proto__',
    name: Buffer.byteLength(last, 'utf8') === last.length ? Buffer.from(last, 'latin1') : null,
    likely: null,
    lastString: null,
    lastStringLength: 0,
    lastStringId: -1,
  };
}

/** Whether bytes [from, from + length) of `bytes` are the first `length` bytes of `expected`. */
function sameBytes(expected: Buffer, length: number, bytes: Buffer, from: number): boolean {
  for (let i = 0; i < length; i++) if (expected[i] !== bytes[from + i]) return false;
  return true;
}

const int32 = (bytes: Buffer, at: number): number => bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16) | (bytes[at + 3] << 24);

/**
 * Top-level fields to decode from records (a partial decode: the fields a filter reads, those the
 * indexes are keyed on…). Remembers, for each shape met, where its selected fields are.
 */
export class FieldSelection {
  readonly names: ReadonlySet<string>;
  private readonly positions = new WeakMap<object, number[]>();

  constructor(names: Iterable<string>) {
    this.names = new Set(names);
  }

  /** Whether every field of `other` is selected here too. */
  covers(other: FieldSelection): boolean {
    for (const name of other.names) if (!this.names.has(name)) return false;
    return true;
  }

  union(other: FieldSelection): FieldSelection {
    return this.covers(other) ? this : new FieldSelection([...this.names, ...other.names]);
  }

  /** Positions of the selected fields among `fields` (a shape's), ascending. */
  positionsIn(shape: object, fields: string[]): number[] {
    let positions = this.positions.get(shape);
    if (!positions) {
      positions = [];
      for (let i = 0; i < fields.length; i++) if (this.names.has(fields[i])) positions.push(i);
      this.positions.set(shape, positions);
    }
    return positions;
  }
}

/**
 * Growing output of the encoder, reused from one record to the next: a record costs no
 * allocation until it is copied into its slab.
 */
class Output {
  buffer = Buffer.allocUnsafeSlow(64 * 1024);
  length = 0;

  room(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    const next = Buffer.allocUnsafeSlow(Math.max(2 * this.buffer.length, this.length + bytes));
    this.buffer.copy(next, 0, 0, this.length);
    this.buffer = next;
  }

  byte(value: number): void {
    this.room(1);
    this.buffer[this.length++] = value;
  }

  varint(value: number): void {
    this.room(5);
    while (value >= 0x80) {
      this.buffer[this.length++] = (value & 0x7f) | 0x80;
      value >>>= 7;
    }
    this.buffer[this.length++] = value;
  }

  bytes(source: Uint8Array): void {
    this.room(source.length);
    this.buffer.set(source, this.length);
    this.length += source.length;
  }

  /** A number as `RecordCodec` keeps it: a small integer as a zigzag varint, any other as a double. */
  number(value: number): void {
    if (Number.isInteger(value) && value >= -0x40000000 && value < 0x40000000 && !Object.is(value, -0)) {
      this.byte(Tag.smallInt);
      this.varint(((value << 1) ^ (value >> 31)) >>> 0);
      return;
    }
    this.byte(Tag.double);
    this.room(8);
    this.length = this.buffer.writeDoubleLE(value, this.length);
  }

  /** Bytes [from, to) of `source`. */
  slice(source: Buffer, from: number, to: number): void {
    this.room(to - from);
    source.copy(this.buffer, this.length, from, to);
    this.length += to - from;
  }

  /**
   * Writes the varint `value` where `reserve` bytes were kept for it at `at`, moving what was written
   * since when it takes more or fewer bytes (a count or a shape known only once its values are written).
   */
  varintAt(at: number, reserve: number, value: number): void {
    let size = 1;
    for (let rest = value; rest >= 0x80; rest = Math.floor(rest / 128)) size++;
    if (size !== reserve) {
      this.room(size - reserve);
      this.buffer.copyWithin(at + size, at + reserve, this.length);
      this.length += size - reserve;
    }
    while (value >= 0x80) {
      this.buffer[at++] = (value & 0x7f) | 0x80;
      value >>>= 7;
    }
    this.buffer[at] = value;
  }
}

/**
 * The compact form of a collection's stored documents. A document is its shape's number (field
 * names are kept once per collection, not once per document) followed by its values, each a tag
 * byte and as few bytes as it needs: integers as varints, strings that recur as their number in
 * the collection's dictionary, ObjectIds in 12 bytes, dates and other doubles in 8. A FOCUS line
 * item of ~1.9 KB of BSON takes ~0.5 KB. Decoding gives a new object each time, with the same
 * values (and classes: Decimal128, Long, Binary…) as the BSON it came from.
 */
export class RecordCodec {
  private readonly root: Shape = newShape(0, []);
  private readonly shapes: Shape[] = [this.root];
  private readonly strings = new StringDictionary();
  private readonly output = new Output();

  /** Encodes `doc`; the bytes are valid until the next call. */
  encode(doc: Document): Buffer {
    this.output.length = 0;
    this.document(doc, 0);
    return this.output.buffer.subarray(0, this.output.length);
  }

  decode(bytes: Buffer, start: number): Document {
    const reader = { bytes, at: start };
    return this.readValue(reader, 0) as Document;
  }

  /**
   * The selected top-level fields of the record at `start`, as `decode` would give them (in the
   * record's order; a field the document does not have is absent): the other values are skipped
   * without being made, and reading stops after the last selected field.
   */
  decodeFields(bytes: Buffer, start: number, selection: FieldSelection): Document {
    const reader = { bytes, at: start + 1 };
    const shape = this.shapes[readVarint(reader)];
    const positions = selection.positionsIn(shape, shape.fields);
    const doc: Document = {};
    let position = 0;
    for (const wanted of positions) {
      for (; position < wanted; position++) this.skipValue(reader);
      const field = shape.fields[wanted];
      const value = this.readValue(reader, 1);
      if (field === '__proto__') Object.defineProperty(doc, field, { value, enumerable: true, writable: true, configurable: true });
      else doc[field] = value;
      position++;
    }
    return doc;
  }

  /**
   * Encodes a document straight from its BSON bytes into the record `encode` makes of their decoding
   * (the insert path: no JavaScript object in between), optionally with a generated `_id` first. The
   * bytes are valid until the next call. Null, with nothing stored, when the document holds what only
   * bson's decoding reads (types other than double, string, document, array, ObjectId, boolean,
   * date, null and int32; names that are not ASCII, start with `$`, are `__proto__` or repeat; text
   * that is not valid UTF-8; an `_id` array), or is not well formed: the caller decodes it instead.
   */
  encodeBson(bytes: Buffer, generatedId?: ObjectId): Buffer | null {
    this.output.length = 0;
    if (bytes.length < 5 || int32(bytes, 0) !== bytes.length) return null;
    if (!this.bsonDocument(bytes, 0, bytes.length, 0, generatedId)) return null;
    return this.output.buffer.subarray(0, this.output.length);
  }

  private shapeOf(doc: Document): Shape {
    let shape = this.root;
    for (const field in doc) {
      let next = shape.next.get(field);
      if (!next) next = this.addShape(shape, field);
      shape = next;
    }
    return shape;
  }

  private addShape(from: Shape, field: string): Shape {
    const next = newShape(this.shapes.length, [...from.fields, field]);
    this.shapes.push(next);
    from.next.set(field, next);
    return next;
  }

  /** The shape after `from` with the field named by the ASCII bytes [start, end); null when a document read from BSON may not have it. */
  private bsonShape(from: Shape, bytes: Buffer, start: number, end: number): Shape | null {
    const name = storedStrings.fromAscii(bytes, start, end);
    if (name === null) return null;
    const next = from.next.get(name);
    if (next) return next.direct ? next : null;
    if (from.fields.includes(name)) return null;
    const added = this.addShape(from, name);
    return added.direct ? added : null;
  }

  /** A BSON document within [start, limit) as a record value; false when it is not of the kind read here. */
  private bsonDocument(bytes: Buffer, start: number, limit: number, depth: number, generatedId?: ObjectId): boolean {
    const size = start + 4 <= limit ? int32(bytes, start) : 0;
    const end = start + size;
    if (size < 5 || end > limit || bytes[end - 1] !== 0 || depth > MAX_BSON_DEPTH) return false;
    const out = this.output;
    out.byte(Tag.document);
    // The shape is known once every name is read: two bytes kept for its number (moved if it takes more or less).
    const shapeAt = out.length;
    out.room(2);
    out.length += 2;
    let shape = this.root;
    if (generatedId) {
      shape = this.root.next.get('_id') ?? this.addShape(this.root, '_id');
      out.byte(Tag.objectId);
      out.bytes(generatedId.id);
    }
    let at = start + 4;
    for (;;) {
      const type = bytes[at++];
      if (type === 0) {
        if (at !== end) return false;
        break;
      }
      // Documents of a collection mostly follow one another's shapes: the last way taken is compared first.
      const likely = shape.likely;
      const likelyName = likely?.name;
      let next: Shape | null;
      const length = likelyName?.length ?? 0;
      if (likelyName && at + length < end - 1 && bytes[at + length] === 0 && sameBytes(likelyName, length, bytes, at)) {
        next = likely;
        at += length;
      } else {
        const nameStart = at;
        while (at < end && bytes[at] !== 0) at++;
        if (at >= end - 1) return false;
        next = this.bsonShape(shape, bytes, nameStart, at);
        if (!next) return false;
      }
      shape.likely = next;
      // mongod refuses an array `_id`: the decoding path gives the error.
      if (depth === 0 && type === 0x04 && shape === this.root && next.fields[0] === '_id') return false;
      shape = next;
      at = this.bsonElement(bytes, type, at + 1, end, depth, shape);
      if (at < 0) return false;
    }
    out.varintAt(shapeAt, 2, shape.id);
    return true;
  }

  /** The value of BSON `type` at `at` (within `end`) as a record value; returns where it ends, -1 when it is not read here. */
  private bsonElement(bytes: Buffer, type: number, at: number, end: number, depth: number, field: Shape | null = null): number {
    const out = this.output;
    switch (type) {
      case 0x01:
        if (at + 8 > end) return -1;
        out.number(bytes.readDoubleLE(at));
        return at + 8;
      case 0x02: {
        const length = at + 4 <= end ? int32(bytes, at) : 0;
        const from = at + 4;
        const to = from + length - 1;
        if (length <= 0 || to >= end || bytes[to] !== 0) return -1;
        // The same value as this field's in the last document (a tenant, a period, a provider…).
        if (field?.lastString && field.lastStringLength === to - from && sameBytes(field.lastString, to - from, bytes, from)) {
          out.byte(Tag.dictionaryString);
          out.varint(field.lastStringId);
          return to + 1;
        }
        let text = storedStrings.fromAscii(bytes, from, to);
        if (text === null) {
          text = bytes.toString('utf8', from, to);
          // Not valid UTF-8 (or a U+FFFD as such): bson tells them apart.
          if (text.includes('\ufffd')) return -1;
        }
        const id = this.strings.idOf(text);
        if (id >= 0) {
          out.byte(Tag.dictionaryString);
          out.varint(id);
          // A dictionary's numbers never change: the next document's same value is known by its bytes.
          if (field && to - from <= LAST_STRING_BYTES) {
            field.lastString ??= Buffer.allocUnsafe(LAST_STRING_BYTES);
            for (let i = from; i < to; i++) field.lastString[i - from] = bytes[i];
            field.lastStringLength = to - from;
            field.lastStringId = id;
          }
        } else {
          out.byte(Tag.string);
          out.varint(to - from);
          out.slice(bytes, from, to);
        }
        return to + 1;
      }
      case 0x03:
        return this.bsonDocument(bytes, at, end, depth + 1) ? at + int32(bytes, at) : -1;
      case 0x04:
        return this.bsonArray(bytes, at, end, depth + 1);
      case 0x07:
        if (at + 12 > end) return -1;
        out.byte(Tag.objectId);
        out.slice(bytes, at, at + 12);
        return at + 12;
      case 0x08:
        if (bytes[at] > 1) return -1;
        out.byte(bytes[at] === 1 ? Tag.true : Tag.false);
        return at + 1;
      case 0x09: {
        if (at + 8 > end) return -1;
        // As a Date holds it (beyond its range: NaN).
        const time = new Date(int32(bytes, at + 4) * 2 ** 32 + (int32(bytes, at) >>> 0)).getTime();
        out.byte(Tag.date);
        out.room(8);
        out.length = out.buffer.writeDoubleLE(time, out.length);
        return at + 8;
      }
      case 0x0a:
        out.byte(Tag.null);
        return at;
      case 0x10:
        if (at + 4 > end) return -1;
        out.number(int32(bytes, at));
        return at + 4;
      default:
        return -1;
    }
  }

  /** A BSON array at `at` as a record array (its element names are not read, as bson does); returns where it ends or -1. */
  private bsonArray(bytes: Buffer, start: number, limit: number, depth: number): number {
    const size = start + 4 <= limit ? int32(bytes, start) : 0;
    const end = start + size;
    if (size < 5 || end > limit || bytes[end - 1] !== 0 || depth > MAX_BSON_DEPTH) return -1;
    const out = this.output;
    out.byte(Tag.array);
    const countAt = out.length;
    out.byte(0);
    let count = 0;
    let at = start + 4;
    for (;;) {
      const type = bytes[at++];
      if (type === 0) {
        if (at !== end) return -1;
        break;
      }
      while (at < end && bytes[at] !== 0) at++;
      if (at >= end - 1) return -1;
      at = this.bsonElement(bytes, type, at + 1, end, depth);
      if (at < 0) return -1;
      count++;
    }
    out.varintAt(countAt, 1, count);
    return end;
  }

  private document(doc: Document, depth: number): void {
    const shape = this.shapeOf(doc);
    const out = this.output;
    out.byte(Tag.document);
    out.varint(shape.id);
    for (const field of shape.fields) this.value(doc[field], depth + 1);
  }

  private value(value: unknown, depth: number): void {
    const out = this.output;
    switch (typeof value) {
      case 'string': {
        const id = this.strings.idOf(value);
        if (id >= 0) {
          out.byte(Tag.dictionaryString);
          out.varint(id);
          return;
        }
        const length = Buffer.byteLength(value, 'utf8');
        out.byte(Tag.string);
        out.varint(length);
        out.room(length);
        out.length += out.buffer.write(value, out.length, 'utf8');
        return;
      }
      case 'number':
        out.number(value);
        return;
      case 'boolean':
        out.byte(value ? Tag.true : Tag.false);
        return;
      case 'object':
        if (value === null) out.byte(Tag.null);
        else this.objectValue(value, depth);
        return;
      case 'undefined':
        out.byte(Tag.undefined);
        return;
      default:
        this.bsonValue(value);
    }
  }

  private objectValue(value: object, depth: number): void {
    const out = this.output;
    if (depth > MAX_DEPTH) this.bsonValue(value);
    else if (Array.isArray(value)) {
      out.byte(Tag.array);
      out.varint(value.length);
      for (let i = 0; i < value.length; i++) this.value(value[i], depth + 1);
    } else if (value instanceof Date) {
      out.byte(Tag.date);
      out.room(8);
      out.length = out.buffer.writeDoubleLE(value.getTime(), out.length);
    } else if (bsonTypeOf(value) === 'ObjectId') {
      out.byte(Tag.objectId);
      out.bytes((value as ObjectId).id);
    } else if (bsonTypeOf(value) === 'Decimal128') {
      out.byte(Tag.decimal128);
      out.bytes((value as Decimal128).bytes);
    } else if (bsonTypeOf(value) === 'Long') {
      // By its BSON type: a Timestamp is a Long too, by class.
      const long = value as Long;
      out.byte(Tag.long);
      out.room(8);
      out.length = out.buffer.writeInt32LE(long.low, out.length);
      out.length = out.buffer.writeInt32LE(long.high, out.length);
    } else if (isPlainObject(value)) this.document(value as Document, depth);
    else this.bsonValue(value);
  }

  private bsonValue(value: unknown): void {
    const bytes = serialize({ v: value });
    this.output.byte(Tag.bson);
    this.output.varint(bytes.length);
    this.output.bytes(bytes);
  }

  private readValue(reader: { bytes: Buffer; at: number }, depth: number): unknown {
    const bytes = reader.bytes;
    const tag = bytes[reader.at++];
    switch (tag) {
      case Tag.null:
        return null;
      case Tag.undefined:
        return undefined;
      case Tag.false:
        return false;
      case Tag.true:
        return true;
      case Tag.smallInt: {
        const zigzag = readVarint(reader);
        return (zigzag >>> 1) ^ -(zigzag & 1);
      }
      case Tag.double:
        reader.at += 8;
        return bytes.readDoubleLE(reader.at - 8);
      case Tag.string: {
        const length = readVarint(reader);
        reader.at += length;
        return bytes.toString('utf8', reader.at - length, reader.at);
      }
      case Tag.dictionaryString:
        return this.strings.stringOf(readVarint(reader));
      case Tag.date:
        reader.at += 8;
        return new Date(bytes.readDoubleLE(reader.at - 8));
      case Tag.objectId:
        reader.at += 12;
        return new ObjectId(Buffer.from(bytes.subarray(reader.at - 12, reader.at)));
      case Tag.document:
        return this.readDocument(reader, depth);
      case Tag.array: {
        const length = readVarint(reader);
        const array = new Array<unknown>(length);
        for (let i = 0; i < length; i++) array[i] = this.readValue(reader, depth + 1);
        return array;
      }
      case Tag.decimal128:
        reader.at += 16;
        return new Decimal128(Buffer.from(bytes.subarray(reader.at - 16, reader.at)));
      case Tag.long:
        reader.at += 8;
        return new Long(bytes.readInt32LE(reader.at - 8), bytes.readInt32LE(reader.at - 4));
      case Tag.bson: {
        const length = readVarint(reader);
        reader.at += length;
        return (deserialize(bytes.subarray(reader.at - length, reader.at), DESERIALIZE_OPTIONS) as Document).v;
      }
      default:
        throw new Error(`stored record damaged: unknown tag ${tag} at byte ${reader.at - 1}`);
    }
  }

  /** Moves past one value without making it. */
  private skipValue(reader: { bytes: Buffer; at: number }): void {
    const tag = reader.bytes[reader.at++];
    switch (tag) {
      case Tag.null:
      case Tag.undefined:
      case Tag.false:
      case Tag.true:
        return;
      case Tag.smallInt:
      case Tag.dictionaryString:
        readVarint(reader);
        return;
      case Tag.double:
      case Tag.date:
      case Tag.long:
        reader.at += 8;
        return;
      case Tag.objectId:
        reader.at += 12;
        return;
      case Tag.decimal128:
        reader.at += 16;
        return;
      case Tag.string:
      case Tag.bson: {
        const length = readVarint(reader);
        reader.at += length;
        return;
      }
      case Tag.document: {
        const count = this.shapes[readVarint(reader)].fields.length;
        for (let i = 0; i < count; i++) this.skipValue(reader);
        return;
      }
      case Tag.array: {
        const count = readVarint(reader);
        for (let i = 0; i < count; i++) this.skipValue(reader);
        return;
      }
      default:
        throw new Error(`stored record damaged: unknown tag ${tag} at byte ${reader.at - 1}`);
    }
  }

  private readDocument(reader: { bytes: Buffer; at: number }, depth: number): Document {
    const shape = this.shapes[readVarint(reader)];
    const doc: Document = {};
    for (const field of shape.fields) {
      const value = this.readValue(reader, depth + 1);
      // A field named __proto__ is data, as bson makes it, not the object's prototype.
      if (field === '__proto__') Object.defineProperty(doc, field, { value, enumerable: true, writable: true, configurable: true });
      else doc[field] = value;
    }
    return doc;
  }
}

function readVarint(reader: { bytes: Buffer; at: number }): number {
  const bytes = reader.bytes;
  let value = 0;
  let shift = 0;
  for (;;) {
    const byte = bytes[reader.at++];
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return value;
    shift += 7;
  }
}
