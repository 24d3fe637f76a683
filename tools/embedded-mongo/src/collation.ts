import { Context } from 'mingo';
import { canonicalKey, isPlainObject, type Document, type StringFold } from './bson-values';
import { commandError } from './errors';
import { addNumbers, averageNumbers } from './summation';
import { valuesForMatch } from './document-paths';

/**
 * How strings compare for equality under a collation:
 * 0 = binary (no collation, "simple", or strength >= 3),
 * 2 = case-insensitive, 1 = case- and accent-insensitive.
 */
export type FoldLevel = 0 | 1 | 2;

export interface ResolvedCollation {
  /** Collation as mongod reports it in listIndexes / listCollections (all fields filled in). */
  spec: Document;
  level: FoldLevel;
}

const COMBINING_MARKS = /\p{M}/gu;

const folds: Record<FoldLevel, StringFold> = {
  0: null,
  2: (text) => text.normalize('NFC').toLowerCase(),
  1: (text) => text.normalize('NFD').replace(COMBINING_MARKS, '').toLowerCase(),
};

export function foldFor(level: FoldLevel): StringFold {
  return folds[level];
}

const KNOWN_FIELDS = new Set([
  'locale',
  'caseLevel',
  'caseFirst',
  'strength',
  'numericOrdering',
  'alternate',
  'maxVariable',
  'normalization',
  'backwards',
  'version',
]);

/** Validates a collation document; `null` means simple binary comparison. */
export function resolveCollation(raw: unknown): ResolvedCollation | null {
  if (raw === undefined || raw === null) return null;
  if (!isPlainObject(raw)) throw commandError('TypeMismatch', "BSON field 'collation' is the wrong type, expected type 'object'");
  for (const key of Object.keys(raw)) {
    if (!KNOWN_FIELDS.has(key)) throw commandError('FailedToParse', `BSON field 'collation.${key}' is an unknown field.`);
  }
  if (typeof raw.locale !== 'string') {
    throw commandError('FailedToParse', "BSON field 'locale' is missing but a required field");
  }
  if (raw.locale === 'simple') return null;
  const strength = raw.strength === undefined ? 3 : Number(raw.strength);
  if (![1, 2, 3, 4, 5].includes(strength)) {
    throw commandError('BadValue', `Enumeration value '${String(raw.strength)}' for field 'strength' is not a valid value.`);
  }
  if (raw.caseLevel === true && strength < 3) {
    throw commandError('NotImplemented', 'embedded-mongo does not support collation caseLevel with strength 1 or 2');
  }
  const level: FoldLevel = strength === 1 ? 1 : strength === 2 ? 2 : 0;
  const spec: Document = {
    locale: raw.locale,
    caseLevel: raw.caseLevel ?? false,
    caseFirst: raw.caseFirst ?? 'off',
    strength,
    numericOrdering: raw.numericOrdering ?? false,
    alternate: raw.alternate ?? 'non-ignorable',
    maxVariable: raw.maxVariable ?? 'punct',
    normalization: raw.normalization ?? false,
    backwards: raw.backwards ?? false,
    version: '57.1',
  };
  return { spec, level };
}

/** Collation options in the shape mingo's sort understands. */
export function mingoCollation(collation: ResolvedCollation | null): Document | undefined {
  if (!collation) return undefined;
  const { locale, strength, caseFirst, numericOrdering } = collation.spec;
  return { locale, strength: Math.min(Number(strength), 3), caseFirst, numericOrdering };
}

const COLLATION_IN = '$__collationIn';

interface CollationInArgument {
  values: unknown[];
  level: FoldLevel;
}

/**
 * mingo applies collation only when sorting, so equality under a case-/accent-insensitive
 * collation is rewritten to this operator, which compares canonical keys of folded values.
 */
function collationInOperator(selector: string, value: unknown): (doc: Document) => boolean {
  const argument = value as CollationInArgument;
  const fold = foldFor(argument.level);
  const wanted = new Set(argument.values.map((item) => canonicalKey(item, fold)));
  return (doc) => valuesForMatch(doc, selector).some((candidate) => wanted.has(canonicalKey(candidate, fold)));
}

type Accumulator = (collection: Document[], expr: unknown, options: unknown) => unknown;
// The accumulator module is only reachable through package "exports", which the repo's
// node10 module resolution does not read for types; the shape used here is tiny.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const mingoAccumulators = require('mingo/operators/accumulator') as { $push: Accumulator };

/** `$sum` / `$avg` that add Decimal128 and Long values exactly (mingo skips them). */
const sumAccumulator: Accumulator = (collection, expr, options) =>
  typeof expr === 'number' ? collection.length * expr : addNumbers(mingoAccumulators.$push(collection, expr, options) as unknown[]);
const avgAccumulator: Accumulator = (collection, expr, options) =>
  averageNumbers(mingoAccumulators.$push(collection, expr, options) as unknown[]);

/**
 * `$group` accumulators that replace `$sum` / `$avg`. mingo's own operators always take
 * precedence over same-named custom ones, so pipelines are rewritten to these names.
 */
export const EXACT_ACCUMULATORS: Record<string, string> = { $sum: '$__exactSum', $avg: '$__exactAvg' };

/** Operators this server adds to mingo's default context. */
export const queryContext = Context.init({
  query: { [COLLATION_IN]: collationInOperator } as never,
  accumulator: { $__exactSum: sumAccumulator, $__exactAvg: avgAccumulator } as never,
});

export const containsString = (value: unknown): boolean =>
  typeof value === 'string' ||
  (Array.isArray(value) && value.some(containsString)) ||
  (isPlainObject(value) && Object.values(value).some(containsString));

export const isOperatorObject = (value: unknown): value is Document =>
  isPlainObject(value) && Object.keys(value).length > 0 && Object.keys(value).every((key) => key.startsWith('$'));

/** Rewrites equality / `$in` / `$ne` / `$nin` on strings so they honour a folding collation. */
export function rewriteFilterForCollation(filter: Document, level: FoldLevel): Document {
  if (level === 0) return filter;
  const out: Document = {};
  const extraClauses: Document[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if ((key === '$and' || key === '$or' || key === '$nor') && Array.isArray(value)) {
      out[key] = value.map((clause) => (isPlainObject(clause) ? rewriteFilterForCollation(clause, level) : clause));
      continue;
    }
    if (key.startsWith('$')) {
      out[key] = value;
      continue;
    }
    if (!isOperatorObject(value)) {
      out[key] = containsString(value) && !(value instanceof RegExp) ? { [COLLATION_IN]: { values: [value], level } } : value;
      continue;
    }
    const clauses = rewriteFieldOperators(value, level);
    out[key] = clauses[0];
    for (const clause of clauses.slice(1)) extraClauses.push({ [key]: clause });
  }
  if (extraClauses.length > 0) out.$and = [...(Array.isArray(out.$and) ? out.$and : []), ...extraClauses];
  return out;
}

/** Returns one operator object per rewritten operator so that `$not`s never collide. */
function rewriteFieldOperators(operators: Document, level: FoldLevel): Document[] {
  const untouched: Document = {};
  const rewritten: Document[] = [];
  const collationIn = (values: unknown[]): Document => ({ [COLLATION_IN]: { values, level } });
  for (const [op, argument] of Object.entries(operators)) {
    if (op === '$eq' && containsString(argument)) rewritten.push(collationIn([argument]));
    else if (op === '$ne' && containsString(argument)) rewritten.push({ $not: collationIn([argument]) });
    else if (op === '$in' && Array.isArray(argument) && containsString(argument) && !argument.some((item) => item instanceof RegExp)) {
      rewritten.push(collationIn(argument));
    } else if (op === '$nin' && Array.isArray(argument) && containsString(argument) && !argument.some((item) => item instanceof RegExp)) {
      rewritten.push({ $not: collationIn(argument) });
    } else if (op === '$not' && isOperatorObject(argument)) {
      const inner = rewriteFieldOperators(argument, level);
      if (inner.length === 1) rewritten.push({ $not: inner[0] });
      else untouched[op] = argument;
    } else if (op === '$elemMatch' && isPlainObject(argument)) {
      untouched[op] = isOperatorObject(argument)
        ? rewriteFieldOperators(argument, level).reduce((all, part) => ({ ...all, ...part }), {})
        : rewriteFilterForCollation(argument, level);
    } else {
      untouched[op] = argument;
    }
  }
  return Object.keys(untouched).length > 0 ? [untouched, ...rewritten] : rewritten.length > 0 ? rewritten : [{}];
}
