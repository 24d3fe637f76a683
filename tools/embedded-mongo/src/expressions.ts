import { Aggregator } from 'mingo';
import { isPlainObject, type Document } from './bson-values';
import { compileElementTest } from './element-filter';
import { toCommandError } from './errors';

// mingo's expression evaluator (reached through package "exports", which the repo's node10
// module resolution does not read for types; the shape used here is tiny).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { evalExpr } = require('mingo/core') as { evalExpr: (doc: unknown, expr: unknown, options: unknown) => unknown };

/** Evaluates an aggregation expression against one document. */
export type Evaluator = (doc: Document) => unknown;

interface ReusableOptions {
  update(locals: Document): ReusableOptions;
}

const GRAB = '$__computeOptions';
let grabbed: ReusableOptions | undefined;

/**
 * mingo rebuilds its evaluation options (merging every operator table) on each call unless it
 * is given an instance of its own options class; one is taken from a tiny pipeline run once
 * per aggregation and reused for every document (only its `root` changes).
 */
function reusableOptions(mingoOptions: Document): ReusableOptions {
  const context = mingoOptions.context as { addExpressionOps(ops: Document): unknown; getOperator(type: string, name: string): unknown };
  if (!context.getOperator('expression', GRAB)) {
    context.addExpressionOps({
      [GRAB]: (_doc: unknown, _expr: unknown, options: ReusableOptions) => {
        grabbed = options;
        return null;
      },
    });
  }
  grabbed = undefined;
  new Aggregator([{ $project: { x: { [GRAB]: 1 } } }], mingoOptions).run([{}]);
  const found = grabbed as (ReusableOptions & { constructor: { init(options: unknown): ReusableOptions } }) | undefined;
  if (!found) throw new Error('mingo evaluation options could not be prepared');
  return found.constructor.init(found);
}

const TOP_LEVEL_FIELD = /^\$[^$.][^.]*$/;
/** Dates whose ISO form starts with a 4-digit year (0000-01-01 to 9999-12-31). */
const FIRST_DAY_MS = -62_167_219_200_000;
const LAST_DAY_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
const NESTED_FIELD = /^\$[^$.][^.]*(\.[^$.][^.]*)+$/;

function isConstant(expression: unknown): boolean {
  if (expression === null || typeof expression !== 'object') return typeof expression !== 'string' || !expression.startsWith('$');
  return !isPlainObject(expression) && !Array.isArray(expression);
}

/**
 * Compiles an expression into a function of the document. The shapes reports and rollups use
 * (constants, top-level fields, `$ifNull` of those, objects of those, `$filter` of tags by group
 * and key) are evaluated directly; everything else goes to mingo, with options prepared once.
 */
export class ExpressionCompiler {
  private options: ReusableOptions | null = null;

  constructor(private readonly mingoOptions: Document) {}

  compile(expression: unknown): Evaluator {
    if (isConstant(expression)) return () => expression;
    if (typeof expression === 'string') {
      if (expression === '$$ROOT' || expression === '$$CURRENT') return (doc) => doc;
      if (TOP_LEVEL_FIELD.test(expression)) {
        const field = expression.slice(1);
        return (doc) => doc[field];
      }
      if (NESTED_FIELD.test(expression)) return this.nestedField(expression);
      return this.general(expression);
    }
    if (isPlainObject(expression)) {
      const keys = Object.keys(expression);
      if (keys.length === 1 && keys[0] === '$literal') {
        const value = expression.$literal;
        return () => value;
      }
      if (keys.length === 1 && keys[0] === '$ifNull' && Array.isArray(expression.$ifNull) && expression.$ifNull.length >= 2) {
        const parts = expression.$ifNull.map((part) => this.compile(part));
        const last = parts.length - 1;
        return (doc) => {
          for (let i = 0; i < last; i++) {
            const value = parts[i](doc);
            if (value !== null && value !== undefined) return value;
          }
          return parts[last](doc);
        };
      }
      if (keys.length === 1 && keys[0] === '$dateToString') {
        const day = this.isoDay(expression.$dateToString, expression);
        if (day) return day;
      }
      if (keys.length === 1 && keys[0] === '$filter') {
        const filter = this.filter(expression.$filter, expression);
        if (filter) return filter;
      }
      if (keys.length > 0 && keys.every((key) => !key.startsWith('$') && !key.includes('.'))) {
        // An object expression: fields evaluating to missing are left out, as mongod does.
        const fields = keys.map((key) => [key, this.compile(expression[key])] as const);
        return (doc) => {
          const out: Document = {};
          for (const [key, evaluate] of fields) {
            const value = evaluate(doc);
            if (value !== undefined) out[key] = value;
          }
          return out;
        };
      }
    }
    return this.general(expression);
  }

  /**
   * `$filter` of an array by a comparison of its elements' fields with strings (`compileElementTest`),
   * evaluated here; an input that is not an array (null, missing, or an error) is left to mingo.
   */
  private filter(spec: unknown, expression: unknown): Evaluator | null {
    if (!isPlainObject(spec) || !Object.keys(spec).every((key) => key === 'input' || key === 'as' || key === 'cond')) return null;
    const variable = spec.as ?? 'this';
    if (typeof variable !== 'string') return null;
    const test = compileElementTest(spec.cond, variable);
    if (!test) return null;
    const input = this.compile(spec.input);
    const general = this.general(expression);
    return (doc) => {
      const items = input(doc);
      return Array.isArray(items) ? items.filter(test) : general(doc);
    };
  }

  /**
   * `$dateToString` with the format `%Y-%m-%d` and no time zone (the rollups' day) of a date whose
   * year has four digits, formatted here; anything else (null, another type, options) goes to mingo.
   */
  private isoDay(spec: unknown, expression: unknown): Evaluator | null {
    if (!isPlainObject(spec) || spec.format !== '%Y-%m-%d' || Object.keys(spec).some((key) => key !== 'format' && key !== 'date'))
      return null;
    const date = this.compile(spec.date);
    const general = this.general(expression);
    return (doc) => {
      const value = date(doc);
      if (!(value instanceof Date)) return general(doc);
      const time = value.getTime();
      return time >= FIRST_DAY_MS && time <= LAST_DAY_MS ? value.toISOString().slice(0, 10) : general(doc);
    };
  }

  /**
   * `$a.b.c` through embedded documents (a second `$group` reading the first one's `_id`), walked
   * here; any other step (an array, whose elements the path maps over, a null or a scalar) goes to mingo.
   */
  private nestedField(expression: string): Evaluator {
    const path = expression.slice(1).split('.');
    const last = path.length - 1;
    const general = this.general(expression);
    return (doc) => {
      let value: unknown = doc;
      for (let i = 0; i < last; i++) {
        value = (value as Document)[path[i]];
        if (!isPlainObject(value)) return general(doc);
      }
      return (value as Document)[path[last]];
    };
  }

  private general(expression: unknown): Evaluator {
    return (doc) => {
      this.options ??= reusableOptions(this.mingoOptions);
      try {
        return evalExpr(doc, expression, this.options.update({ root: doc }));
      } catch (error) {
        throw toCommandError(error);
      }
    };
  }
}
