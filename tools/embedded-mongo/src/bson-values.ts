import { Binary, Decimal128, Long, ObjectId } from 'bson';

export type Document = Record<string, unknown>;

/** BSON wrapper classes (ObjectId, Decimal128, Long, Binary, Timestamp...) carry `_bsontype`. */
export function bsonTypeOf(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const tag = (value as { _bsontype?: unknown })._bsontype;
  return typeof tag === 'string' ? tag : undefined;
}

export function isPlainObject(value: unknown): value is Document {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Deep copy of a document. Immutable BSON values (ObjectId, Decimal128, Long, Timestamp...)
 * are shared; Dates and Binary buffers are copied because they are mutable.
 */
export function deepClone<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => deepClone(item)) as T;
  if (value instanceof Date) return new Date(value.getTime()) as T;
  if (value instanceof Binary) return new Binary(Buffer.from(value.buffer), value.sub_type) as T;
  if (isPlainObject(value)) {
    const copy: Document = {};
    for (const key of Object.keys(value)) copy[key] = deepClone(value[key]);
    return copy as T;
  }
  return value;
}

/** Reads a numeric command argument that may arrive as int32, double or int64. */
export function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (value instanceof Long) return value.toNumber();
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Decimal128) return Number(value.toString());
  return undefined;
}

export function isTruthyFlag(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  const n = toNumber(value);
  return n !== undefined && n !== 0;
}

export type StringFold = ((text: string) => string) | null;

function decimalKey(value: Decimal128): string {
  const text = value.toString();
  const asNumber = Number(text);
  const digits = text
    .replace(/[eE][+-]?\d+$/, '')
    .replace(/\D/g, '')
    .replace(/^0+/, '');
  // Numbers compare equal across numeric BSON types in mongod, so 1, Long(1) and Decimal("1.0") share a key.
  if (Number.isFinite(asNumber) && digits.length <= 15) return `n${Object.is(asNumber, -0) ? 0 : asNumber}`;
  return `d${text}`;
}

/**
 * A string that is equal for two values exactly when mongod considers them equal (with the
 * given string fold applied for collation). Used as key of the `_id` map and unique indexes.
 */
export function canonicalKey(value: unknown, fold: StringFold = null): string {
  if (value === undefined || value === null) return 'null';
  switch (typeof value) {
    case 'number':
      if (Number.isNaN(value)) return 'nan';
      return `n${Object.is(value, -0) ? 0 : value}`;
    case 'string':
      return `s${JSON.stringify(fold ? fold(value) : value)}`;
    case 'boolean':
      return value ? 'b1' : 'b0';
    case 'bigint':
      return Number.isSafeInteger(Number(value)) ? `n${Number(value)}` : `L${value.toString()}`;
    default:
      break;
  }
  if (Array.isArray(value)) return `[${value.map((item) => canonicalKey(item, fold)).join(',')}]`;
  if (value instanceof Date) return `t${value.getTime()}`;
  if (value instanceof RegExp) return `r${value.source}/${value.flags}`;
  if (isPlainObject(value)) {
    return `{${Object.keys(value)
      .map((key) => `${JSON.stringify(key)}:${canonicalKey(value[key], fold)}`)
      .join(',')}}`;
  }
  if (value instanceof ObjectId) return `o${value.toHexString()}`;
  if (value instanceof Long) {
    const n = value.toNumber();
    return Number.isSafeInteger(n) ? `n${n}` : `L${value.toString()}`;
  }
  if (value instanceof Decimal128) return decimalKey(value);
  if (value instanceof Binary) return `x${value.sub_type}:${Buffer.from(value.buffer).toString('base64')}`;
  const bsonType = bsonTypeOf(value);
  if (bsonType) return `${bsonType}:${String(value)}`;
  return `?${String(value)}`;
}

/** Renders a value the way mongod prints it inside error messages (`dup key: { a: "x" }`). */
export function formatValue(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[ ${value.map(formatValue).join(', ')} ]`;
  if (value instanceof Date) return `new Date(${value.getTime()})`;
  if (value instanceof ObjectId) return `ObjectId('${value.toHexString()}')`;
  if (value instanceof Decimal128) return `Decimal128("${value.toString()}")`;
  if (value instanceof Long) return value.toString();
  if (isPlainObject(value)) return formatDocument(value);
  return String(value);
}

export function formatDocument(doc: Document): string {
  const entries = Object.keys(doc).map((key) => `${key}: ${formatValue(doc[key])}`);
  return entries.length === 0 ? '{}' : `{ ${entries.join(', ')} }`;
}

/** BSON comparison order between types (mongod's canonical type order). */
function typeRank(value: unknown): number {
  if (value === undefined || value === null) return 1;
  if (typeof value === 'number' || typeof value === 'bigint' || value instanceof Long || value instanceof Decimal128) return 2;
  if (typeof value === 'string') return 3;
  if (Array.isArray(value)) return 5;
  if (isPlainObject(value)) return 4;
  if (value instanceof Binary) return 6;
  if (value instanceof ObjectId) return 7;
  if (typeof value === 'boolean') return 8;
  if (value instanceof Date) return 9;
  if (value instanceof RegExp) return 11;
  return 12;
}

/** Orders values like mongod does for `distinct` results and similar value lists. */
export function compareValues(a: unknown, b: unknown): number {
  const rankA = typeRank(a);
  const rankB = typeRank(b);
  if (rankA !== rankB) return rankA - rankB;
  switch (rankA) {
    case 2:
      return Number(toNumber(a)) - Number(toNumber(b));
    case 3:
      return (a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0;
    case 7:
      return (a as ObjectId).toHexString().localeCompare((b as ObjectId).toHexString());
    case 8:
      return Number(a) - Number(b);
    case 9:
      return (a as Date).getTime() - (b as Date).getTime();
    default: {
      const keyA = canonicalKey(a);
      const keyB = canonicalKey(b);
      return keyA < keyB ? -1 : keyA > keyB ? 1 : 0;
    }
  }
}
