import { Expr, parsePromQL } from './promql';

/** One series a service exports, as Prometheus stores it (`…_bucket`, `…_count` of a histogram). */
export interface ExportedSeries {
  labels: ReadonlySet<string>;
  /** A counter or a part of a histogram or summary that only grows: what `rate` and `increase` take. */
  monotonic: boolean;
}

/** Per service, the series of its `/metrics` by name. */
export type ExportedSeriesByService = ReadonlyMap<string, ReadonlyMap<string, ExportedSeries>>;

/** One series a query reads, and the service its `service="…"` matcher names. */
export interface SelectedSeries {
  series: string;
  service?: string;
}

export interface QueryCheck {
  selected: SelectedSeries[];
  /** The range of every `rate`, `irate` and `increase` (`$__rate_interval`). */
  rateRanges: string[];
  problems: string[];
}

type Value = { kind: 'scalar' } | { kind: 'string' } | { kind: 'vector'; labels: Set<string> };

const SAME_LABELS = new Set([
  'abs',
  'ceil',
  'floor',
  'round',
  'exp',
  'ln',
  'log2',
  'log10',
  'sqrt',
  'sgn',
  'clamp',
  'clamp_min',
  'clamp_max',
  'sort',
  'sort_desc',
  'timestamp',
]);
const OVER_TIME = new Set([
  'rate',
  'irate',
  'increase',
  'delta',
  'idelta',
  'deriv',
  'changes',
  'resets',
  'avg_over_time',
  'min_over_time',
  'max_over_time',
  'sum_over_time',
  'count_over_time',
  'last_over_time',
  'stddev_over_time',
  'quantile_over_time',
]);
const COUNTER_ONLY = new Set(['rate', 'irate', 'increase', 'resets']);
/** Aggregations whose samples keep the labels of their input. */
const SELECTING = new Set(['topk', 'bottomk', 'limitk']);

const list = (labels: Iterable<string>) => [...labels].sort().join(', ') || 'no label';

/**
 * Reads one query against the series each service exports: every series named must be on the
 * `/metrics` of the service its `service` matcher names (of every service without one, or with a
 * pattern), every label a matcher, `by`, `without`, `on`, `ignoring` or `histogram_quantile`
 * uses must be on the vector it applies to, and both sides of a binary operator must match.
 */
export function checkQuery(query: string, exported: ExportedSeriesByService): QueryCheck {
  const check: QueryCheck = { selected: [], rateRanges: [], problems: [] };
  let expr: Expr;
  try {
    expr = parsePromQL(query);
  } catch (error) {
    check.problems.push((error as Error).message);
    return check;
  }
  const problem = (text: string) => check.problems.push(text);
  const vectorOf = (value: Value, what: string): Set<string> => {
    if (value.kind === 'vector') return value.labels;
    problem(`${what} takes a vector`);
    return new Set();
  };
  const requireLabels = (labels: string[], available: Set<string>, where: string) => {
    for (const label of labels) if (!available.has(label)) problem(`${where} uses "${label}", not a label of ${list(available)}`);
  };

  const selector = (expr: Extract<Expr, { kind: 'selector' }>, counterOnly: boolean): Value => {
    const service = expr.matchers.find((matcher) => matcher.label === 'service' && matcher.op === '=')?.value;
    check.selected.push({ series: expr.name, service });
    const services = service ? [service] : [...exported.keys()];
    const labels = new Set<string>();
    for (const name of services) {
      const series = exported.get(name)?.get(expr.name);
      if (!series) {
        problem(`${expr.name} is not on /metrics of ${name}`);
        continue;
      }
      if (counterOnly && !series.monotonic) problem(`${expr.name} is not a counter: rate and increase read counters`);
      series.labels.forEach((label) => labels.add(label));
      requireLabels(
        expr.matchers.map((matcher) => matcher.label),
        new Set(series.labels),
        `${expr.name} on ${name}`,
      );
    }
    return { kind: 'vector', labels };
  };

  const call = (expr: Extract<Expr, { kind: 'call' }>): Value => {
    const { fn, args } = expr;
    if (OVER_TIME.has(fn)) {
      const range = args.at(-1);
      if (range?.kind !== 'selector' || !range.range) {
        problem(`${fn} takes a range vector`);
        return { kind: 'vector', labels: new Set() };
      }
      if (COUNTER_ONLY.has(fn)) check.rateRanges.push(range.range);
      args.slice(0, -1).forEach(evaluate);
      return selector(range, COUNTER_ONLY.has(fn));
    }
    const values = args.map(evaluate);
    if (fn === 'histogram_quantile') {
      const labels = vectorOf(values[1] ?? { kind: 'scalar' }, fn);
      requireLabels(['le'], labels, fn);
      return { kind: 'vector', labels: new Set([...labels].filter((label) => label !== 'le')) };
    }
    if (SAME_LABELS.has(fn)) return { kind: 'vector', labels: vectorOf(values[0] ?? { kind: 'scalar' }, fn) };
    if (fn === 'vector' || fn === 'absent') return { kind: 'vector', labels: new Set() };
    if (fn === 'scalar' || fn === 'time') return { kind: 'scalar' };
    problem(`unknown function ${fn}`);
    return { kind: 'vector', labels: new Set() };
  };

  const aggregate = (expr: Extract<Expr, { kind: 'aggregate' }>): Value => {
    const values = expr.args.map(evaluate);
    const input = vectorOf(values.at(-1) ?? { kind: 'scalar' }, expr.op);
    const grouping = expr.grouping;
    if (grouping) requireLabels(grouping.labels, input, `${expr.op} ${grouping.without ? 'without' : 'by'}`);
    if (SELECTING.has(expr.op)) return { kind: 'vector', labels: input };
    if (!grouping) return { kind: 'vector', labels: new Set() };
    if (grouping.without) return { kind: 'vector', labels: new Set([...input].filter((label) => !grouping.labels.includes(label))) };
    return { kind: 'vector', labels: new Set(grouping.labels) };
  };

  const binary = (expr: Extract<Expr, { kind: 'binary' }>): Value => {
    const lhs = evaluate(expr.lhs);
    const rhs = evaluate(expr.rhs);
    if (lhs.kind !== 'vector') return rhs.kind === 'vector' ? rhs : { kind: 'scalar' };
    if (rhs.kind !== 'vector') return lhs;
    const { matching, group } = expr;
    const where = `"${expr.op}"`;
    if (matching?.on) {
      requireLabels(matching.labels, lhs.labels, `${where} on, left,`);
      requireLabels(matching.labels, rhs.labels, `${where} on, right,`);
    } else {
      const ignored = matching?.labels ?? [];
      const left = [...lhs.labels].filter((label) => !ignored.includes(label));
      const right = [...rhs.labels].filter((label) => !ignored.includes(label));
      if (!group && list(left) !== list(right))
        problem(`the sides of ${where} have different labels (${list(left)} / ${list(right)}): no sample matches`);
    }
    if (group) requireLabels(group.labels, group.side === 'left' ? rhs.labels : lhs.labels, `${where} group_${group.side}`);
    const many = group?.side === 'right' ? rhs : lhs;
    return { kind: 'vector', labels: new Set([...many.labels, ...(group?.labels ?? [])]) };
  };

  function evaluate(expr: Expr): Value {
    switch (expr.kind) {
      case 'number':
        return { kind: 'scalar' };
      case 'string':
        return { kind: 'string' };
      case 'unary':
        return evaluate(expr.expr);
      case 'selector':
        if (expr.range) problem(`${expr.name}[${expr.range}] is a range vector outside a function that takes one`);
        return selector(expr, false);
      case 'call':
        return call(expr);
      case 'aggregate':
        return aggregate(expr);
      case 'binary':
        return binary(expr);
    }
  }

  evaluate(expr);
  return check;
}
