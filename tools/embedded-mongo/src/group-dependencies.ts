import { isPlainObject } from './bson-values';
import { FieldSelection } from './record-codec';

/** The accumulators whose argument is an expression of the document (and nothing else). */
const EXPRESSION_ACCUMULATORS = new Set(['$sum', '$avg', '$min', '$max', '$first', '$last', '$push', '$addToSet', '$count']);
/** Operators that read fields by a name given as a plain string, or run code: their reads are not visible. */
const OPAQUE_OPERATORS = new Set(['$getField', '$setField', '$unsetField', '$function', '$accumulator']);

/** Adds the top-level fields an expression reads to `into`; false when it may read any field (`$$ROOT`, `$getField`, …). */
function collect(expression: unknown, into: Set<string>): boolean {
  if (typeof expression === 'string') {
    if (!expression.startsWith('$')) return true;
    if (expression.startsWith('$$')) return !/^\$\$(ROOT|CURRENT)\b/.test(expression);
    into.add(expression.slice(1).split('.')[0]);
    return true;
  }
  if (Array.isArray(expression)) return expression.every((item) => collect(item, into));
  if (!isPlainObject(expression)) return true;
  for (const [key, value] of Object.entries(expression)) {
    if (key === '$literal') continue;
    if (OPAQUE_OPERATORS.has(key) || !collect(value, into)) return false;
  }
  return true;
}

/**
 * The top-level fields a `$group` reads of its input documents, or null when that cannot be told
 * (an accumulator or operator whose reads are not visible): as mongod tracks a pipeline's
 * dependencies, a query feeding the stage decodes only those fields of each document.
 */
export function groupDependencies(group: unknown): FieldSelection | null {
  if (!isPlainObject(group)) return null;
  const fields = new Set<string>();
  for (const [name, spec] of Object.entries(group)) {
    if (name === '_id') {
      if (!collect(spec, fields)) return null;
      continue;
    }
    if (!isPlainObject(spec) || Object.keys(spec).length !== 1) return null;
    const [operator] = Object.keys(spec);
    if (!EXPRESSION_ACCUMULATORS.has(operator) || !collect(spec[operator], fields)) return null;
  }
  return new FieldSelection(fields);
}
