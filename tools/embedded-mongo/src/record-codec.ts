import { Decimal128, deserialize, Long, ObjectId, serialize } from 'bson';
import { bsonTypeOf, isPlainObject, type Document } from './bson-values';
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

/** A set of field names in order, numbered: reached from the previous field's shape by the next name. */
interface Shape {
  id: number;
  fields: string[];
  next: Map<string, Shape>;
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
  private readonly root: Shape = { id: 0, fields: [], next: new Map() };
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

  private shapeOf(doc: Document): Shape {
    let shape = this.root;
    for (const field in doc) {
      let next = shape.next.get(field);
      if (!next) {
        next = { id: this.shapes.length, fields: [...shape.fields, field], next: new Map() };
        this.shapes.push(next);
        shape.next.set(field, next);
      }
      shape = next;
    }
    return shape;
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
        if (Number.isInteger(value) && value >= -0x40000000 && value < 0x40000000 && !Object.is(value, -0)) {
          out.byte(Tag.smallInt);
          out.varint(((value << 1) ^ (value >> 31)) >>> 0);
          return;
        }
        out.byte(Tag.double);
        out.room(8);
        out.length = out.buffer.writeDoubleLE(value, out.length);
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
