import { Decimal128, Long } from 'bson';
import { canonicalKey, compareValues, deepClone, isPlainObject, type Document } from './bson-values';
import { ExpressionCompiler, type Evaluator } from './expressions';
import type { Operation } from './operation';
import { SumState } from './summation';

/**
 * `$group`, computed here in one pass over its input (mingo evaluates every accumulator over
 * per-group arrays, ~20× slower), yielding between slices so other connections are served.
 * Results follow mongod: groups keyed by BSON equality (1, 1.0 and Long(1) are one group),
 * `$sum`/`$avg` of doubles compensated as mongod's DoubleDoubleSummation, Decimal128 and Long
 * added exactly, `$push`/`$addToSet` leaving out missing values, `$min`/`$max` ignoring null
 * and missing. Groups come out in the order they were first met.
 */

type AccumulatorName = '$sum' | '$avg' | '$min' | '$max' | '$first' | '$last' | '$push' | '$addToSet' | '$count';

/** mingo's names for `$sum`/`$avg` after the pipeline was prepared for it (see collation.ts). */
const ALIASES: Record<string, AccumulatorName> = { $__exactSum: '$sum', $__exactAvg: '$avg' };
const SUPPORTED = new Set<string>(['$sum', '$avg', '$min', '$max', '$first', '$last', '$push', '$addToSet', '$count']);

interface AccumulatorSpec {
  name: string;
  op: AccumulatorName;
  evaluate: Evaluator;
  /** `$sum` of a number constant (a count, or a multiple of it). */
  constant: number | null;
}

/** The state of `$first`, `$last`, `$min`, `$max`, `$push` and `$addToSet`; `$sum` and `$avg` keep a SumState, a constant one nothing. */
interface State {
  value: unknown;
  seen: boolean;
  items: unknown[] | null;
  keys: Set<string> | null;
}

type AccumulatorState = State | SumState | null;

interface Group {
  id: unknown;
  count: number;
  states: AccumulatorState[];
}

/**
 * A string equal for two values exactly when mongod puts them in one group (numbers compare
 * across int, double, Long and Decimal128), quick to build for the usual strings and numbers.
 * Every part is self-delimiting, so the keys of arrays and objects cannot collide.
 */
export function groupKey(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return `s${value.length}:${value}`;
    case 'number':
      return Number.isNaN(value) ? 'nan;' : `n${value === 0 ? 0 : value};`;
    case 'boolean':
      return value ? 'T' : 'F';
    case 'undefined':
      return 'z';
    default:
      break;
  }
  if (value === null) return 'z';
  if (value instanceof Date) return `t${value.getTime()};`;
  if (Array.isArray(value)) {
    let key = '[';
    for (const item of value) key += groupKey(item);
    return `${key}]`;
  }
  if (isPlainObject(value)) {
    let key = '{';
    for (const name of Object.keys(value)) key += `${name.length}:${name}${groupKey(value[name])}`;
    return `${key}}`;
  }
  if (value instanceof Long || value instanceof Decimal128) {
    const canonical = canonicalKey(value);
    // Integers and representable decimals share the number's key: 1, 1.0, Long(1), Decimal("1").
    if (canonical.startsWith('n')) return `${canonical};`;
  }
  const canonical = canonicalKey(value);
  return `c${canonical.length}:${canonical}`;
}

interface GroupId {
  /** The group key of a document (computed first). */
  key(doc: Document): string;
  /** The `_id` value of the document whose key was just computed (only for a new group). */
  value(doc: Document): unknown;
}

/** `_id`: an object of expressions is keyed field by field, built as an object only for new groups. */
function compileGroupId(expression: unknown, compiler: ExpressionCompiler): GroupId {
  if (
    isPlainObject(expression) &&
    Object.keys(expression).length > 0 &&
    Object.keys(expression).every((name) => !name.startsWith('$') && !name.includes('.'))
  ) {
    const fields = Object.entries(expression).map(([name, inner]) => [name, `${name.length}:${name}`, compiler.compile(inner)] as const);
    const values: unknown[] = new Array(fields.length);
    return {
      key(doc) {
        let key = '{';
        for (let i = 0; i < fields.length; i++) {
          const value = (values[i] = fields[i][2](doc));
          if (value !== undefined) key += fields[i][1] + groupKey(value);
        }
        return `${key}}`;
      },
      value() {
        const id: Document = {};
        for (let i = 0; i < fields.length; i++) if (values[i] !== undefined) id[fields[i][0]] = values[i];
        return id;
      },
    };
  }
  const evaluate = compiler.compile(expression);
  let last: unknown;
  return {
    key(doc) {
      last = evaluate(doc);
      return groupKey(last);
    },
    value: () => last,
  };
}

const copyOut = (value: unknown): unknown => (value !== null && typeof value === 'object' ? deepClone(value) : value);

function newState(spec: AccumulatorSpec): AccumulatorState {
  const { op } = spec;
  if (op === '$sum' || op === '$avg') return spec.constant === null ? new SumState() : null;
  if (op === '$count') return null;
  return {
    value: undefined,
    seen: false,
    items: op === '$push' || op === '$addToSet' ? [] : null,
    keys: op === '$addToSet' ? new Set() : null,
  };
}

function accumulate(spec: AccumulatorSpec, accumulatorState: AccumulatorState, doc: Document): void {
  if (accumulatorState instanceof SumState) {
    accumulatorState.add(spec.evaluate(doc));
    return;
  }
  const state = accumulatorState as State;
  switch (spec.op) {
    case '$sum':
    case '$avg':
    case '$count':
      return;
    case '$first':
      if (!state.seen) {
        state.seen = true;
        state.value = spec.evaluate(doc);
      }
      return;
    case '$last':
      state.value = spec.evaluate(doc);
      return;
    case '$min':
    case '$max': {
      const value = spec.evaluate(doc);
      if (value === undefined || value === null) return;
      const order = state.seen ? compareValues(value, state.value) : 0;
      if (!state.seen || (spec.op === '$min' ? order < 0 : order > 0)) {
        state.seen = true;
        state.value = value;
      }
      return;
    }
    case '$push': {
      const value = spec.evaluate(doc);
      if (value !== undefined) (state.items as unknown[]).push(value);
      return;
    }
    case '$addToSet': {
      const value = spec.evaluate(doc);
      if (value === undefined) return;
      const key = groupKey(value);
      if (!(state.keys as Set<string>).has(key)) {
        (state.keys as Set<string>).add(key);
        (state.items as unknown[]).push(value);
      }
      return;
    }
  }
}

function resultOf(spec: AccumulatorSpec, accumulatorState: AccumulatorState, count: number): unknown {
  const state = accumulatorState as State;
  switch (spec.op) {
    case '$sum':
      return spec.constant !== null ? count * spec.constant : (accumulatorState as SumState).result();
    case '$avg':
      return spec.constant !== null ? (count > 0 ? spec.constant : null) : (accumulatorState as SumState).average();
    case '$count':
      return count;
    case '$first':
    case '$last':
      return state.value === undefined ? null : copyOut(state.value);
    case '$min':
    case '$max':
      return state.seen ? copyOut(state.value) : null;
    case '$push':
    case '$addToSet':
      return (state.items as unknown[]).map(copyOut);
  }
}

function accumulatorOf(name: string, spec: unknown, compiler: ExpressionCompiler): AccumulatorSpec | null {
  if (!isPlainObject(spec) || Object.keys(spec).length !== 1 || name.includes('.') || name.startsWith('$')) return null;
  const [raw] = Object.keys(spec);
  const op = (ALIASES[raw] ?? raw) as AccumulatorName;
  if (!SUPPORTED.has(op)) return null;
  const argument = spec[raw];
  if (op === '$count') {
    if (!isPlainObject(argument) || Object.keys(argument).length > 0) return null;
    return { name, op, evaluate: () => undefined, constant: null };
  }
  if (Array.isArray(argument)) return null;
  const constant = (op === '$sum' || op === '$avg') && typeof argument === 'number' ? argument : null;
  return { name, op, evaluate: compiler.compile(argument), constant };
}

/** One computation of the stage: documents added one at a time, then the groups. */
export interface GroupRun {
  add(doc: Document): void;
  results(op: Operation): Promise<Document[]>;
}

export interface GroupStage {
  /** A computation fed document by document (by the query that reads the input, for one). */
  start(): GroupRun;
  run(op: Operation, input: Document[]): Promise<Document[]>;
}

/** The stage computed here, or null when it uses something only mingo knows (then mingo runs it). */
export function compileGroup(stage: Document, mingoOptions: Document): GroupStage | null {
  const spec = stage.$group;
  if (Object.keys(stage).length !== 1 || !isPlainObject(spec) || !('_id' in spec)) return null;
  const compiler = new ExpressionCompiler(mingoOptions);
  const groupId = compileGroupId(spec._id, compiler);
  const accumulators: AccumulatorSpec[] = [];
  for (const [name, accumulator] of Object.entries(spec)) {
    if (name === '_id') continue;
    const compiled = accumulatorOf(name, accumulator, compiler);
    if (!compiled) return null;
    accumulators.push(compiled);
  }
  const start = (): GroupRun => {
    const groups = new Map<string, Group>();
    return {
      add(doc) {
        const key = groupId.key(doc);
        let group = groups.get(key);
        if (!group) groups.set(key, (group = { id: groupId.value(doc), count: 0, states: accumulators.map(newState) }));
        group.count++;
        for (let i = 0; i < accumulators.length; i++) accumulate(accumulators[i], group.states[i], doc);
      },
      async results(op) {
        const out: Document[] = [];
        for (const group of groups.values()) {
          const result: Document = { _id: group.id === undefined ? null : copyOut(group.id) };
          for (let i = 0; i < accumulators.length; i++)
            result[accumulators[i].name] = resultOf(accumulators[i], group.states[i], group.count);
          out.push(result);
          if (op.tick()) await op.yieldTurn();
        }
        return out;
      },
    };
  };
  return {
    start,
    async run(op, input) {
      const computation = start();
      for (const doc of input) {
        computation.add(doc);
        if (op.tick()) await op.yieldTurn();
      }
      return computation.results(op);
    },
  };
}
