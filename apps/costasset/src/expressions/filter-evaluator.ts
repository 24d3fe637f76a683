import { DIMENSIONS_FIELD } from './compiler';

/**
 * Evaluates a filter of the shape the compiler emits (`$and`, `$or`, `$nor`, `{ field: { $eq | $ne } }`,
 * `{ tags: { $elemMatch } }`, `{ 'dimensions.<name>': { $eq | $ne } }`, `{}`, and `{ _id: { $in: [] } }`
 * for "nothing") on one document in memory, as MongoDB would. Used where a row must be checked
 * before it is stored (an import within the importer's visibility) and where only part of a document
 * is known (an upload's billing accounts): with `known`, a field outside it is unknown, and the
 * answer is `undefined` unless the known fields alone decide it (three-valued logic).
 *
 * A dimension key `dimensions.<name>` is read from the nested object `doc.dimensions` (own
 * properties only), and is known when `known` holds that dotted key; a missing dimension value is
 * absent, as in MongoDB: `$eq` is false and `$ne` true.
 */
export type FilterVerdict = boolean | undefined;

type Doc = Readonly<Record<string, unknown>>;
type Condition = { $eq?: unknown; $ne?: unknown; $in?: unknown[]; $elemMatch?: Record<string, unknown> };

export function evaluateFilter(filter: Readonly<Record<string, unknown>>, doc: Doc, known?: ReadonlySet<string>): FilterVerdict {
  return all(Object.entries(filter).map(([key, value]) => evaluateEntry(key, value, doc, known)));
}

function evaluateEntry(key: string, value: unknown, doc: Doc, known: ReadonlySet<string> | undefined): FilterVerdict {
  const operands = () => (value as Record<string, unknown>[]).map((operand) => evaluateFilter(operand, doc, known));
  if (key === '$and') return all(operands());
  if (key === '$or') return any(operands());
  if (key === '$nor') return not(any(operands()));
  if (key.startsWith('$')) throw new Error(`filter operator ${key} is not one the expression compiler emits`);
  if (known && !known.has(key)) return undefined;
  return evaluateCondition(readField(doc, key), value as Condition);
}

const DIMENSION_PREFIX = `${DIMENSIONS_FIELD}.`;

/** `doc[key]`, except that `dimensions.<name>` is read from the nested object `doc.dimensions`. */
function readField(doc: Doc, key: string): unknown {
  if (!key.startsWith(DIMENSION_PREFIX)) return doc[key];
  const dimensions = doc[DIMENSIONS_FIELD];
  if (typeof dimensions !== 'object' || dimensions === null || Array.isArray(dimensions)) return undefined;
  const name = key.slice(DIMENSION_PREFIX.length);
  return Object.prototype.hasOwnProperty.call(dimensions, name) ? (dimensions as Record<string, unknown>)[name] : undefined;
}

function evaluateCondition(actual: unknown, condition: Condition): boolean {
  return Object.entries(condition).every(([operator, operand]) => {
    switch (operator) {
      case '$eq':
        return actual === operand;
      case '$ne':
        return actual !== operand;
      case '$in':
        return (operand as unknown[]).includes(actual);
      case '$elemMatch':
        return (
          Array.isArray(actual) && actual.some((element) => evaluateFilter(operand as Record<string, unknown>, element as Doc) === true)
        );
      default:
        throw new Error(`filter condition ${operator} is not one the expression compiler emits`);
    }
  });
}

function all(verdicts: FilterVerdict[]): FilterVerdict {
  if (verdicts.includes(false)) return false;
  return verdicts.includes(undefined) ? undefined : true;
}

function any(verdicts: FilterVerdict[]): FilterVerdict {
  if (verdicts.includes(true)) return true;
  return verdicts.includes(undefined) ? undefined : false;
}

function not(verdict: FilterVerdict): FilterVerdict {
  return verdict === undefined ? undefined : !verdict;
}

export type FilterPredicate = (doc: Doc) => boolean;

/**
 * `evaluateFilter(filter, doc)` (all fields known) compiled once into a function: for a filter run
 * over many documents (a dimension's rules over every group, a split rule's source over every
 * piece), the tree is walked once instead of once per document.
 */
export function compileFilter(filter: Readonly<Record<string, unknown>>): FilterPredicate {
  const entries = Object.entries(filter).map(([key, value]) => compileEntry(key, value));
  if (entries.length === 0) return () => true;
  if (entries.length === 1) return entries[0];
  return (doc) => entries.every((entry) => entry(doc));
}

function compileEntry(key: string, value: unknown): FilterPredicate {
  if (key === '$and' || key === '$or' || key === '$nor') {
    const operands = (value as Record<string, unknown>[]).map((operand) => compileFilter(operand));
    if (key === '$and') return (doc) => operands.every((operand) => operand(doc));
    if (key === '$or') return (doc) => operands.some((operand) => operand(doc));
    return (doc) => !operands.some((operand) => operand(doc));
  }
  if (key.startsWith('$')) throw new Error(`filter operator ${key} is not one the expression compiler emits`);
  const tests = Object.entries(value as Condition).map(([operator, operand]) => compileCondition(operator, operand));
  const dimension = key.startsWith(DIMENSION_PREFIX);
  const read = dimension ? (doc: Doc) => readField(doc, key) : (doc: Doc) => doc[key];
  if (tests.length === 1) {
    const [test] = tests;
    return (doc) => test(read(doc));
  }
  return (doc) => {
    const actual = read(doc);
    return tests.every((test) => test(actual));
  };
}

function compileCondition(operator: string, operand: unknown): (actual: unknown) => boolean {
  switch (operator) {
    case '$eq':
      return (actual) => actual === operand;
    case '$ne':
      return (actual) => actual !== operand;
    case '$in': {
      const values = operand as unknown[];
      return (actual) => values.includes(actual);
    }
    case '$elemMatch': {
      const element = compileFilter(operand as Record<string, unknown>);
      return (actual) => Array.isArray(actual) && actual.some((item) => element(item as Doc));
    }
    default:
      throw new Error(`filter condition ${operator} is not one the expression compiler emits`);
  }
}
