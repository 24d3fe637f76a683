import { Decimal128, Long, ObjectId } from 'bson';
import { bsonTypeOf, formatValue, isPlainObject, isTruthyFlag, type Document, type StringFold } from './bson-values';
import { containsString, isOperatorObject, type FoldLevel } from './collation';
import type { IndexState, KeyRange } from './index-state';
import { complement, encodeValue, PREFIX_END } from './key-encoding';

/**
 * Turns a filter's top-level conditions into index bounds, as mongod's planner does: equality
 * and `$in` give point intervals, `$gt`/`$gte`/`$lt`/`$lte` a range bracketed by type; a
 * compound index is bounded by points on a prefix of its fields, then one range.
 */

type RangeOperator = '$gt' | '$gte' | '$lt' | '$lte';

export type Condition =
  | { kind: 'points'; values: unknown[] }
  | { kind: 'range'; op: RangeOperator; value: unknown }
  /** `$exists: true`: the whole index, the filter decides (as mongod bounds it on a non-sparse index). */
  | { kind: 'exists' };

export interface FieldPredicate {
  path: string;
  conditions: Condition[];
  /** The field also has conditions no index bound can express ($ne, $regex, $exists, ...). */
  residual: boolean;
}

export interface FilterPredicates {
  fields: Map<string, FieldPredicate>;
  /** Parts of the filter that are not conditions on a field ($or, $expr, $nor, ...). */
  residual: boolean;
}

const RANGE_OPERATORS = new Set(['$gt', '$gte', '$lt', '$lte']);

/** Values that can be an index point: not arrays, regexes, operator objects or MinKey/MaxKey. */
function isPointValue(value: unknown): boolean {
  if (value === undefined || Array.isArray(value) || value instanceof RegExp) return false;
  if (isPlainObject(value)) return !isOperatorObject(value) && !Object.values(value).some((inner) => inner instanceof RegExp);
  const type = bsonTypeOf(value);
  return type !== 'MinKey' && type !== 'MaxKey' && type !== 'BSONRegExp';
}

function isRangeValue(value: unknown): boolean {
  return value !== null && !(value instanceof Long) && !(value instanceof Decimal128) && isPointValue(value);
}

function predicateOf(fields: Map<string, FieldPredicate>, path: string): FieldPredicate {
  let predicate = fields.get(path);
  if (!predicate) fields.set(path, (predicate = { path, conditions: [], residual: false }));
  return predicate;
}

/** The indexable conditions of a filter's top level (including nested `$and`). */
export function filterPredicates(filter: Document): FilterPredicates {
  const fields = new Map<string, FieldPredicate>();
  let residual = false;
  const visit = (clause: Document): void => {
    for (const [key, value] of Object.entries(clause)) {
      if (key === '$and' && Array.isArray(value) && value.every(isPlainObject)) {
        value.forEach((inner) => visit(inner as Document));
        continue;
      }
      if (key === '$comment') continue;
      if (key.startsWith('$')) {
        residual = true;
        continue;
      }
      const predicate = predicateOf(fields, key);
      if (!isOperatorObject(value)) {
        if (isPointValue(value)) predicate.conditions.push({ kind: 'points', values: [value] });
        else predicate.residual = true;
        continue;
      }
      for (const [op, argument] of Object.entries(value)) {
        if (op === '$eq' && isPointValue(argument)) predicate.conditions.push({ kind: 'points', values: [argument] });
        else if (op === '$in' && Array.isArray(argument) && argument.every(isPointValue)) {
          predicate.conditions.push({ kind: 'points', values: argument });
        } else if (op === '$exists' && isTruthyFlag(argument)) {
          predicate.conditions.push({ kind: 'exists' });
          predicate.residual = true;
        } else if (RANGE_OPERATORS.has(op) && isRangeValue(argument)) {
          predicate.conditions.push({ kind: 'range', op: op as RangeOperator, value: argument });
        } else predicate.residual = true;
      }
    }
  };
  visit(filter);
  return { fields, residual };
}

interface Endpoint {
  /** Encoded value, or a type tag for "every value of this type", or '' for MinKey/MaxKey. */
  enc: string;
  inclusive: boolean;
  isValue: boolean;
  display: string;
}

export interface Interval {
  low: Endpoint;
  high: Endpoint;
}

const lowKey = (endpoint: Endpoint): string => (endpoint.inclusive ? endpoint.enc : endpoint.enc + PREFIX_END);
const highKey = (endpoint: Endpoint): string => (endpoint.inclusive ? endpoint.enc + PREFIX_END : endpoint.enc);

export const FULL_INTERVAL: Interval = {
  low: { enc: '', inclusive: true, isValue: false, display: 'MinKey' },
  high: { enc: '', inclusive: true, isValue: false, display: 'MaxKey' },
};

/** How mongod prints a bound value in explain's indexBounds. */
export function displayBound(value: unknown): string {
  if (typeof value === 'number') {
    if (value === Number.POSITIVE_INFINITY) return 'inf.0';
    if (value === Number.NEGATIVE_INFINITY) return '-inf.0';
    if (Number.isNaN(value)) return 'nan.0';
    return String(value);
  }
  if (value instanceof ObjectId) return `ObjectId('${value.toHexString()}')`;
  return formatValue(value);
}

const TYPE_EDGES: Record<string, [string, string]> = {
  '\u0014': ['null', 'null'],
  '\u001e': ['-inf.0', 'inf.0'],
  '\u0028': ['""', '{}'],
  '\u0032': ['{}', '[]'],
  '\u003c': ['[]', 'BinData(0, )'],
  '\u0046': ['BinData(0, )', "ObjectId('000000000000000000000000')"],
  '\u0050': ["ObjectId('000000000000000000000000')", "ObjectId('ffffffffffffffffffffffff')"],
  '\u005a': ['false', 'true'],
  '\u0064': ['new Date(-9223372036854775808)', 'new Date(9223372036854775807)'],
  '\u006e': ['Timestamp(0, 0)', 'Timestamp(4294967295, 4294967295)'],
  '\u0078': ['/(?:)/', 'MaxKey'],
};

function valueEndpoint(value: unknown, fold: StringFold, inclusive: boolean): Endpoint {
  return { enc: encodeValue(value, fold), inclusive, isValue: true, display: displayBound(value) };
}

function typeEdge(value: unknown, side: 0 | 1): Endpoint {
  const tag = encodeValue(value)[0];
  return { enc: tag, inclusive: true, isValue: false, display: TYPE_EDGES[tag]?.[side] ?? (side === 0 ? 'MinKey' : 'MaxKey') };
}

function conditionIntervals(condition: Condition, fold: StringFold): Interval[] {
  if (condition.kind === 'exists') return [FULL_INTERVAL];
  if (condition.kind === 'points') {
    const byKey = new Map<string, Interval>();
    for (const value of condition.values) {
      const point = valueEndpoint(value, fold, true);
      byKey.set(point.enc, { low: point, high: point });
    }
    return [...byKey.values()].sort((a, b) => (a.low.enc < b.low.enc ? -1 : a.low.enc > b.low.enc ? 1 : 0));
  }
  const { op, value } = condition;
  if (op === '$gt' || op === '$gte') return [{ low: valueEndpoint(value, fold, op === '$gte'), high: typeEdge(value, 1) }];
  return [{ low: typeEdge(value, 0), high: valueEndpoint(value, fold, op === '$lte') }];
}

function intersect(a: Interval[], b: Interval[]): Interval[] {
  const out: Interval[] = [];
  for (const x of a) {
    for (const y of b) {
      const low = lowKey(x.low) >= lowKey(y.low) ? x.low : y.low;
      const high = highKey(x.high) <= highKey(y.high) ? x.high : y.high;
      if (lowKey(low) < highKey(high)) out.push({ low, high });
    }
  }
  return out;
}

export function isPoint(interval: Interval): boolean {
  return (
    interval.low.isValue &&
    interval.high.isValue &&
    interval.low.inclusive &&
    interval.high.inclusive &&
    interval.low.enc === interval.high.enc
  );
}

function conditionValues(condition: Condition): unknown[] {
  if (condition.kind === 'exists') return [];
  return condition.kind === 'points' ? condition.values : [condition.value];
}

/** Whether an index (collation `indexLevel`) may bound a condition of a query (`queryLevel`). */
function usableUnderCollation(condition: Condition, indexLevel: FoldLevel, queryLevel: FoldLevel): boolean {
  if (!conditionValues(condition).some(containsString)) return true;
  if (indexLevel !== queryLevel) return false;
  // Under a folding collation strings are ordered by ICU rules, which encoded keys do not follow.
  return condition.kind === 'points' || indexLevel === 0;
}

/** Whether the bounds alone decide the condition exactly as the matcher would (no re-check needed). */
function isExact(condition: Condition): boolean {
  if (condition.kind === 'exists') return false;
  return conditionValues(condition).every((value) => value !== null && !isPlainObject(value));
}

export interface FieldBounds {
  intervals: Interval[];
  /** Every condition on the field is fully expressed by the intervals. */
  exact: boolean;
}

/** Intervals on one index field for a predicate, or null when the index cannot use it. */
export function fieldBounds(
  predicate: FieldPredicate | undefined,
  index: IndexState,
  fieldPosition: number,
  queryLevel: FoldLevel,
): FieldBounds | null {
  if (!predicate) return null;
  const usable = predicate.conditions.filter((condition) => usableUnderCollation(condition, index.level, queryLevel));
  if (usable.length === 0) return null;
  if (index.multikeyFields[fieldPosition]) {
    // Each condition may be met by a different array element: bound by one condition only.
    const chosen =
      usable.find((condition) => condition.kind === 'points') ?? usable.find((condition) => condition.kind === 'range') ?? usable[0];
    return { intervals: conditionIntervals(chosen, index.fold), exact: false };
  }
  let intervals = conditionIntervals(usable[0], index.fold);
  for (const condition of usable.slice(1)) intervals = intersect(intervals, conditionIntervals(condition, index.fold));
  const exact = !predicate.residual && usable.length === predicate.conditions.length && usable.every(isExact);
  return { intervals, exact };
}

/** An interval on a descending field, in the field's (complemented) key order. */
function orientedKeys(interval: Interval, direction: 1 | -1): { start: string; end: string } {
  if (direction === 1) return { start: lowKey(interval.low), end: highKey(interval.high) };
  const low: Endpoint = { ...interval.high, enc: complement(interval.high.enc) };
  const high: Endpoint = { ...interval.low, enc: complement(interval.low.enc) };
  return { start: lowKey(low), end: highKey(high) };
}

function displayInterval(interval: Interval, reversed: boolean): string {
  const { low, high } = interval;
  if (reversed) return `${high.inclusive ? '[' : '('}${high.display}, ${low.display}${low.inclusive ? ']' : ')'}`;
  return `${low.inclusive ? '[' : '('}${low.display}, ${high.display}${high.inclusive ? ']' : ')'}`;
}

/** The most point combinations one scan enumerates before the rest of the key is left unbounded. */
const MAX_POINT_COMBINATIONS = 200;

export interface IndexBounds {
  ranges: KeyRange[];
  /** Per index field, mongod's interval strings (in scan order). */
  display: Document;
  /** Leading fields pinned to a single value. */
  fixedFields: number;
  /** Index fields (from the first) whose intervals bound the scan. */
  boundedFields: number;
  /** Paths whose every condition the bounds express exactly. */
  exactPaths: Set<string>;
  /** Leading fields pinned to one value each (they need no sort). */
  singlePointPaths: Set<string>;
}

/** Key ranges of an index for per-field intervals (null = unbounded), scanned in `direction`. */
export function indexBounds(index: IndexState, perField: Array<FieldBounds | null>, direction: 1 | -1): IndexBounds {
  let prefixes = [''];
  let ranges: KeyRange[] | null = null;
  let fixedFields = 0;
  let boundedFields = 0;
  let stillFixed = true;
  const exactPaths = new Set<string>();
  const singlePointPaths = new Set<string>();
  for (let i = 0; i < index.fields.length && ranges === null; i++) {
    const bounds = perField[i];
    const fieldDirection = index.directions[i];
    if (!bounds) {
      ranges = prefixes.map((prefix) => ({ start: prefix, end: prefix + PREFIX_END }));
      break;
    }
    boundedFields++;
    if (bounds.exact) exactPaths.add(index.fields[i]);
    const allPoints = bounds.intervals.every(isPoint);
    if (allPoints && bounds.intervals.length === 1 && stillFixed) {
      fixedFields++;
      singlePointPaths.add(index.fields[i]);
    } else stillFixed = false;
    if (allPoints && prefixes.length * bounds.intervals.length <= MAX_POINT_COMBINATIONS) {
      const encoded = bounds.intervals.map((interval) => (fieldDirection === 1 ? interval.low.enc : complement(interval.low.enc)));
      prefixes = prefixes.flatMap((prefix) => encoded.map((part) => prefix + part));
      continue;
    }
    const keys = bounds.intervals.map((interval) => orientedKeys(interval, fieldDirection));
    ranges = prefixes.flatMap((prefix) => keys.map(({ start, end }) => ({ start: prefix + start, end: prefix + end })));
  }
  if (ranges === null) ranges = prefixes.map((prefix) => ({ start: prefix, end: prefix + PREFIX_END }));
  ranges.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  const display: Document = {};
  index.fields.forEach((field, i) => {
    const reversed = (index.directions[i] === -1) !== (direction === -1);
    const shown = i < boundedFields ? (perField[i] as FieldBounds).intervals : [FULL_INTERVAL];
    const strings = shown.map((interval) => displayInterval(interval, reversed));
    display[field] = reversed ? strings.reverse() : strings;
  });
  return { ranges, display, fixedFields, boundedFields, exactPaths, singlePointPaths };
}
