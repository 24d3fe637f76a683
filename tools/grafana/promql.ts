/**
 * A parser for the PromQL the dashboards write: selectors, range vectors, function calls,
 * aggregations with `by`/`without`, and binary operators with `bool`, `on`/`ignoring` and
 * `group_left`/`group_right`. Grafana's variables stand for what they replace: `$__rate_interval`
 * inside a range, `"$instance"` inside a string, `$var` as a number. Anything else (offsets,
 * `@`, subqueries) is refused rather than guessed at.
 */

export interface Matcher {
  label: string;
  op: '=' | '!=' | '=~' | '!~';
  value: string;
}

export type Expr =
  | { kind: 'number' }
  | { kind: 'string' }
  | { kind: 'selector'; name: string; matchers: Matcher[]; range?: string }
  | { kind: 'call'; fn: string; args: Expr[] }
  | { kind: 'aggregate'; op: string; grouping?: { without: boolean; labels: string[] }; args: Expr[] }
  | {
      kind: 'binary';
      op: string;
      lhs: Expr;
      rhs: Expr;
      matching?: { on: boolean; labels: string[] };
      group?: { side: 'left' | 'right'; labels: string[] };
    }
  | { kind: 'unary'; expr: Expr };

type TokenKind = 'number' | 'string' | 'ident' | 'variable' | 'range' | 'punct' | 'op';
interface Token {
  kind: TokenKind;
  text: string;
}

export const AGGREGATIONS = new Set([
  'sum',
  'avg',
  'min',
  'max',
  'count',
  'stddev',
  'stdvar',
  'group',
  'topk',
  'bottomk',
  'quantile',
  'limitk',
]);

/** Lowest to highest; `^` binds tightest (and to the right). */
const PRECEDENCE: string[][] = [['or'], ['and', 'unless'], ['==', '!=', '<=', '<', '>=', '>'], ['+', '-'], ['*', '/', '%', 'atan2'], ['^']];
const KEYWORD_OPERATORS = new Set(['or', 'and', 'unless', 'atan2']);

const PATTERNS: [TokenKind, RegExp][] = [
  ['number', /^(?:0x[0-9a-f]+|\d+(?:\.\d*)?(?:e[+-]?\d+)?|\.\d+(?:e[+-]?\d+)?)/i],
  ['string', /^(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`)/],
  ['variable', /^\$(?:\{[^}]+\}|\w+)/],
  ['ident', /^[a-zA-Z_:][a-zA-Z0-9_:]*/],
  ['range', /^\[[^\]]*\]/],
  ['op', /^(?:==|!=|<=|>=|=~|!~|[-+*/%^<>=])/],
  ['punct', /^[(){},]/],
];

export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let rest = source.trimStart();
  while (rest) {
    const found = PATTERNS.map(([kind, pattern]) => ({ kind, match: pattern.exec(rest) })).find(({ match }) => match);
    if (!found?.match) throw new Error(`cannot read PromQL at "${rest.slice(0, 20)}"`);
    tokens.push({ kind: found.kind, text: found.match[0] });
    rest = rest.slice(found.match[0].length).trimStart();
  }
  return tokens;
}

export function parsePromQL(source: string): Expr {
  const tokens = tokenize(source);
  let at = 0;
  const peek = (offset = 0): Token | undefined => tokens[at + offset];
  const isText = (text: string, offset = 0) => peek(offset)?.text === text && peek(offset)?.kind !== 'string';
  const fail = (expected: string): never => {
    throw new Error(
      `expected ${expected} at "${
        tokens
          .slice(at, at + 4)
          .map((token) => token.text)
          .join(' ') || 'the end'
      }" in ${source}`,
    );
  };
  const take = (text?: string): Token => {
    const token = peek();
    if (!token || (text !== undefined && !isText(text))) return fail(text ?? 'more');
    at += 1;
    return token;
  };

  const labelList = (): string[] => {
    take('(');
    const labels: string[] = [];
    while (!isText(')')) {
      if (peek()?.kind !== 'ident') fail('a label name');
      labels.push(take().text);
      if (!isText(')')) take(',');
    }
    take(')');
    return labels;
  };

  const argumentList = (): Expr[] => {
    take('(');
    const args: Expr[] = [];
    while (!isText(')')) {
      args.push(expression(0));
      if (!isText(')')) take(',');
    }
    take(')');
    return args;
  };

  const selector = (name: string): Expr => {
    const matchers: Matcher[] = [];
    if (isText('{')) {
      take('{');
      while (!isText('}')) {
        if (peek()?.kind !== 'ident') fail('a label name');
        const label = take().text;
        const op = take().text as Matcher['op'];
        if (!['=', '!=', '=~', '!~'].includes(op)) fail('a label matcher');
        if (peek()?.kind !== 'string') fail('a quoted label value');
        matchers.push({ label, op, value: take().text.slice(1, -1) });
        if (!isText('}')) take(',');
      }
      take('}');
    }
    const range = peek()?.kind === 'range' ? take().text.slice(1, -1).trim() : undefined;
    if (range?.includes(':')) fail('a range, not a subquery');
    return { kind: 'selector', name, matchers, range };
  };

  const aggregation = (op: string): Expr => {
    const grouping = () => {
      const without = take().text === 'without';
      return { without, labels: labelList() };
    };
    let group = isText('by') || isText('without') ? grouping() : undefined;
    const args = argumentList();
    if (!group && (isText('by') || isText('without'))) group = grouping();
    return { kind: 'aggregate', op, grouping: group, args };
  };

  const primary = (): Expr => {
    const token = peek();
    if (!token) return fail('an expression');
    if (token.kind === 'number' || token.kind === 'variable') return take() && { kind: 'number' };
    if (token.kind === 'string') return take() && { kind: 'string' };
    if (isText('(')) {
      take('(');
      const inner = expression(0);
      take(')');
      return inner;
    }
    if (isText('-') || isText('+')) return take() && { kind: 'unary', expr: expression(PRECEDENCE.length - 1) };
    if (token.kind !== 'ident') return fail('an expression');
    take();
    const name = token.text;
    if (AGGREGATIONS.has(name) && (isText('(') || isText('by') || isText('without'))) return aggregation(name);
    if (isText('(')) return { kind: 'call', fn: name, args: argumentList() };
    return selector(name);
  };

  const operatorAt = (level: number): string | undefined => {
    const token = peek();
    if (!token || (token.kind !== 'op' && !(token.kind === 'ident' && KEYWORD_OPERATORS.has(token.text)))) return undefined;
    return PRECEDENCE[level].includes(token.text) ? token.text : undefined;
  };

  /** Operators of `level` and tighter, left-associative except `^`. */
  function expression(level: number): Expr {
    if (level === PRECEDENCE.length) return primary();
    let lhs = expression(level + 1);
    for (let op = operatorAt(level); op; op = operatorAt(level)) {
      take();
      if (isText('bool')) take();
      const matching = isText('on') || isText('ignoring') ? { on: take().text === 'on', labels: labelList() } : undefined;
      const group =
        isText('group_left') || isText('group_right')
          ? { side: take().text === 'group_left' ? ('left' as const) : ('right' as const), labels: isText('(') ? labelList() : [] }
          : undefined;
      const rhs = op === '^' ? expression(level) : expression(level + 1);
      lhs = { kind: 'binary', op, lhs, rhs, matching, group };
      if (op === '^') break;
    }
    return lhs;
  }

  const parsed = expression(0);
  if (at < tokens.length) fail('the end');
  return parsed;
}
