import { isPlainObject, type Document } from './bson-values';

/** A test of one array element, as `$filter`'s `cond` would answer it. */
export type ElementTest = (element: unknown) => boolean;

const FIELD_OF = (variable: string) => new RegExp(`^\\$\\$${variable}\\.([^.$][^.]*)$`);

/**
 * `cond` compiled for elements bound to `variable`, when it only compares a field of the element
 * with a string (`$eq`, the string plain or `$literal`), in `$and`/`$or`: such a comparison is true exactly when the element is an
 * object holding that string there (a missing field, another type or an array are never equal to a
 * string). Null for any other condition (then evaluated as mongod would, by the general evaluator).
 */
export function compileElementTest(cond: unknown, variable: string): ElementTest | null {
  if (!/^[a-z][A-Za-z0-9_]*$/.test(variable) || !isPlainObject(cond) || Object.keys(cond).length !== 1) return null;
  const [operator] = Object.keys(cond);
  const operands = cond[operator];
  if (!Array.isArray(operands)) return null;
  if (operator === '$and' || operator === '$or') {
    const tests = operands.map((operand) => compileElementTest(operand, variable));
    if (tests.some((test) => test === null)) return null;
    const all = tests as ElementTest[];
    return operator === '$and' ? (element) => all.every((test) => test(element)) : (element) => all.some((test) => test(element));
  }
  if (operator !== '$eq' || operands.length !== 2) return null;
  const fieldPath = FIELD_OF(variable);
  const [left, right] = operands;
  const [path, constant] = typeof left === 'string' && fieldPath.test(left) ? [left, right] : [right, left];
  const match = typeof path === 'string' ? fieldPath.exec(path) : null;
  const literal = isPlainObject(constant) && Object.keys(constant).length === 1 ? constant.$literal : undefined;
  const text = typeof constant === 'string' && !constant.startsWith('$') ? constant : literal;
  if (!match || typeof text !== 'string') return null;
  const field = match[1];
  return (element) => isPlainObject(element) && (element as Document)[field] === text;
}
