/**
 * Evaluates a filter of the shape the compiler emits (`$and`, `$or`, `$nor`, `{ field: { $eq | $ne } }`,
 * `{ tags: { $elemMatch } }`, `{}`, and `{ _id: { $in: [] } }` for "nothing") on one document in
 * memory, as MongoDB would. Used where a row must be checked before it is stored (an import within
 * the importer's visibility) and where only part of a document is known (an upload's billing
 * accounts): with `known`, a field outside it is unknown, and the answer is `undefined` unless the
 * known fields alone decide it (three-valued logic).
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
  return evaluateCondition(doc[key], value as Condition);
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
