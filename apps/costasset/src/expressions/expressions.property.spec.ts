import fc from 'fast-check';
import { Query } from 'mingo';
import { ComparisonOperator, DIMENSION_NAME_PATTERN, EXPRESSION_FIELDS, Expression, ExpressionField, ValueNode } from './ast';
import { compileToFilter } from './compiler';
import { ExpressionError } from './errors';
import { EXPRESSION_LIMITS, parse } from './parser';
import { print } from './printer';

type Operands = [Expression, Expression, ...Expression[]];

const placeholderName = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,8}$/);
const comparisonOperator = fc.constantFrom<ComparisonOperator>('==', '!=');
/** Dimension names: any lower-case slug, leaning on the edges (one character, 63, `-` and `_`). */
const dimensionName = fc.oneof(
  fc.stringMatching(DIMENSION_NAME_PATTERN),
  fc.constantFrom('0', 'a', 'team', 'cost-center', 'a_-', 'z'.repeat(63), 'constructor'),
);

/** Unicode text that leans on the characters the tokenizer treats specially. */
const awkwardText = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: fc.constantFrom("'", '"', '\\', '$', '{', '}', '(', ')', ',', '&', '|', '!', '=', ' ', '\n', 'a', 'é', '🚀') }),
);

/** Syntax trees of the expression language; `maxDepth` keeps them inside the parser's limits. */
function expressionTree(
  strings: fc.Arbitrary<string>,
  names: fc.Arbitrary<string>,
  dimensions: fc.Arbitrary<string> = dimensionName,
  maxDepth = 4,
): fc.Arbitrary<Expression> {
  const value: fc.Arbitrary<ValueNode> = fc.oneof(
    strings.map((text): ValueNode => ({ kind: 'literal', value: text })),
    names.map((name): ValueNode => ({ kind: 'param', name })),
  );
  const operands = (tie: fc.LetrecLooselyTypedTie) =>
    fc.array(tie('expression') as fc.Arbitrary<Expression>, { minLength: 2, maxLength: 3 }) as fc.Arbitrary<Operands>;
  return fc.letrec((tie) => ({
    expression: fc.oneof(
      { maxDepth, depthIdentifier: 'expression' },
      tie('compare'),
      tie('tag'),
      tie('dimension'),
      tie('constant'),
      tie('not'),
      tie('and'),
      tie('or'),
    ),
    constant: fc.boolean().map((value): Expression => ({ kind: 'constant', value })),
    compare: fc
      .tuple(fc.constantFrom<ExpressionField>(...EXPRESSION_FIELDS), comparisonOperator, value)
      .map(([field, op, compared]): Expression => ({ kind: 'compare', field, op, value: compared })),
    tag: fc
      .tuple(strings, strings, comparisonOperator, value)
      .map(([group, key, op, compared]): Expression => ({ kind: 'tag', group, key, op, value: compared })),
    dimension: fc
      .tuple(dimensions, comparisonOperator, value)
      .map(([name, op, compared]): Expression => ({ kind: 'dimension', name, op, value: compared })),
    not: (tie('expression') as fc.Arbitrary<Expression>).map((operand): Expression => ({ kind: 'not', operand })),
    and: operands(tie).map((items): Expression => ({ kind: 'and', operands: items })),
    or: operands(tie).map((items): Expression => ({ kind: 'or', operands: items })),
  })).expression as fc.Arbitrary<Expression>;
}

const anyTree = expressionTree(awkwardText, placeholderName);

function fitsTheLimits(text: string): boolean {
  return Buffer.byteLength(text, 'utf8') <= EXPRESSION_LIMITS.maxBytes;
}

const TOKENS = [
  ...EXPRESSION_FIELDS,
  'tag',
  'dimension',
  "'team'",
  "'Team'",
  'true',
  '$where',
  'tags.value',
  '(',
  ')',
  ',',
  '==',
  '!=',
  '&&',
  '||',
  '!',
  '=',
  '===',
  '&',
  '|',
  "'a'",
  '"b"',
  "'it\\'s'",
  '"\\"\\\\"',
  "'",
  '"',
  '\\',
  "'\\n'",
  '${p}',
  '${q}',
  '${',
  '}',
  '${1}',
  ' ',
  '\n',
  '🚀',
  '#',
];

/** Text from the grammar's tokens, in any order, with or without spaces between them. */
const tokenSoup = fc
  .tuple(fc.array(fc.constantFrom(...TOKENS), { maxLength: 30 }), fc.boolean())
  .map(([tokens, spaced]) => tokens.join(spaced ? ' ' : ''));

/** A valid expression with a few characters inserted or removed somewhere. */
const damagedExpression = fc
  .tuple(anyTree, fc.nat(), fc.nat({ max: 3 }), fc.string({ maxLength: 3, unit: fc.constantFrom(...TOKENS) }))
  .map(([tree, at, removed, inserted]) => {
    const text = print(tree);
    const cut = at % (text.length + 1);
    return text.slice(0, cut) + inserted + text.slice(cut + removed);
  });

const anyText = fc.oneof(fc.string(), fc.string({ unit: 'binary', maxLength: 200 }), tokenSoup, damagedExpression, anyTree.map(print));

const anyParams = fc.dictionary(
  fc.oneof(placeholderName, fc.constantFrom('p', 'q', '__proto__', 'constructor')),
  fc.oneof(awkwardText, fc.string({ minLength: 1020, maxLength: 1100 }), fc.anything()),
);

/** Whether a filter uses only the whitelisted operators and fields, with strings as the only values. */
function isSafeFilter(filter: unknown): boolean {
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) return false;
  const entries = Object.entries(filter);
  if (entries.length === 0) return true;
  if (entries.length !== 1) return false;
  const [[key, condition]] = entries;
  if (key === '$and' || key === '$or' || key === '$nor') {
    return Array.isArray(condition) && condition.length > 0 && condition.every(isSafeFilter);
  }
  if (key === 'tags') {
    if (!isPlainObject(condition) || Object.keys(condition).join() !== '$elemMatch') return false;
    const match = condition.$elemMatch;
    return isPlainObject(match) && Object.keys(match).join() === 'group,key,value' && Object.values(match).every(isEqualsString);
  }
  if (key.startsWith('dimensions.')) {
    return DIMENSION_NAME_PATTERN.test(key.slice('dimensions.'.length)) && isPlainObject(condition) && isComparison(condition);
  }
  return (EXPRESSION_FIELDS as readonly string[]).includes(key) && isPlainObject(condition) && isComparison(condition);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isEqualsString(value: unknown): boolean {
  return isPlainObject(value) && Object.keys(value).join() === '$eq' && typeof value.$eq === 'string';
}

function isComparison(condition: Record<string, unknown>): boolean {
  const keys = Object.keys(condition);
  return keys.length === 1 && (keys[0] === '$eq' || keys[0] === '$ne') && typeof condition[keys[0]] === 'string';
}

function expectOnlyExpressionErrors(action: () => void, text: string): void {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(ExpressionError);
    const { position } = error as ExpressionError;
    expect(Number.isInteger(position) && position >= 0 && position <= text.length).toBe(true);
  }
}

describe('expressions: properties', () => {
  it('parse(print(tree)) deep-equals the tree', () => {
    fc.assert(
      fc.property(anyTree, (tree) => {
        const text = print(tree);
        fc.pre(fitsTheLimits(text));
        expect(parse(text)).toEqual(tree);
      }),
      { numRuns: 500 },
    );
  });

  it('parse throws nothing but an ExpressionError inside the text, and what it accepts compiles to a safe filter', () => {
    fc.assert(
      fc.property(anyText, anyParams, (text, params) => {
        expectOnlyExpressionErrors(() => {
          const tree = parse(text);
          expect(parse(print(tree))).toEqual(tree);
          expectOnlyExpressionErrors(() => expect(isSafeFilter(compileToFilter(tree, params as Record<string, string>))).toBe(true), text);
        }, text);
      }),
      { numRuns: 1000 },
    );
  });

  it('compile throws nothing but an ExpressionError for any tree and parameters', () => {
    fc.assert(
      fc.property(anyTree, anyParams, (tree, params) => {
        try {
          expect(isSafeFilter(compileToFilter(tree, params as Record<string, string>))).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(ExpressionError);
        }
      }),
    );
  });

  it('a dimension node compiles exactly when its name is a dimension name, to a safe filter', () => {
    fc.assert(
      fc.property(fc.oneof(awkwardText, dimensionName), comparisonOperator, awkwardText, (name, op, text) => {
        const tree: Expression = { kind: 'dimension', name, op, value: { kind: 'literal', value: text } };
        if (DIMENSION_NAME_PATTERN.test(name)) {
          expect(isSafeFilter(compileToFilter(tree))).toBe(true);
          if (fitsTheLimits(print(tree))) expect(parse(print(tree))).toEqual(tree);
        } else {
          expect(() => compileToFilter(tree)).toThrow(ExpressionError);
          expect(() => parse(print(tree))).toThrow(ExpressionError);
        }
      }),
    );
  });

  it('a parameter compiles exactly like the same text written as a literal', () => {
    const substitute = (tree: Expression, params: Record<string, string>): Expression => {
      const value = (node: ValueNode): ValueNode => (node.kind === 'param' ? { kind: 'literal', value: params[node.name] } : node);
      switch (tree.kind) {
        case 'and':
        case 'or':
          return { kind: tree.kind, operands: tree.operands.map((operand) => substitute(operand, params)) as Operands };
        case 'not':
          return { kind: 'not', operand: substitute(tree.operand, params) };
        case 'constant':
          return tree;
        default:
          return { ...tree, value: value(tree.value) };
      }
    };
    const names = fc.constantFrom('p', 'q');
    fc.assert(
      fc.property(expressionTree(awkwardText, names), awkwardText, awkwardText, (tree, p, q) => {
        const params = { p, q };
        expect(compileToFilter(tree, params)).toEqual(compileToFilter(substitute(tree, params), {}));
      }),
    );
  });

  it('compiled filters select exactly what the expression means', () => {
    type Item = Partial<Record<ExpressionField, string>> & {
      tags?: Array<{ group: string; key: string; value: string }>;
      dimensions?: Partial<Record<string, string>>;
    };
    const pool = fc.constantFrom('a', 'b');
    const item: fc.Arbitrary<Item> = fc.record(
      {
        ...Object.fromEntries(EXPRESSION_FIELDS.map((field) => [field, pool])),
        tags: fc.array(fc.record({ group: pool, key: pool, value: pool }), { maxLength: 3 }),
        dimensions: fc.record({ team: pool, 'cost-center': pool }, { requiredKeys: [] }),
      },
      { requiredKeys: [] },
    );
    const params: Record<string, string> = { p: 'a', q: 'b' };
    const resolve = (node: ValueNode): string => (node.kind === 'param' ? params[node.name] : node.value);
    const meaning = (tree: Expression, subject: Item): boolean => {
      switch (tree.kind) {
        case 'and':
          return tree.operands.every((operand) => meaning(operand, subject));
        case 'or':
          return tree.operands.some((operand) => meaning(operand, subject));
        case 'not':
          return !meaning(tree.operand, subject);
        case 'constant':
          return tree.value;
        case 'compare':
          return (subject[tree.field] === resolve(tree.value)) === (tree.op === '==');
        case 'tag': {
          const value = resolve(tree.value);
          const found = (subject.tags ?? []).some((t) => t.group === tree.group && t.key === tree.key && t.value === value);
          return found === (tree.op === '==');
        }
        case 'dimension':
          return (subject.dimensions?.[tree.name] === resolve(tree.value)) === (tree.op === '==');
      }
    };
    fc.assert(
      fc.property(
        expressionTree(pool, fc.constantFrom('p', 'q'), fc.constantFrom('team', 'cost-center', 'env')),
        fc.array(item, { maxLength: 5 }),
        (tree, items) => {
          const query = new Query(compileToFilter(tree, params));
          for (const subject of items) expect(query.test(subject)).toBe(meaning(tree, subject));
        },
      ),
      { numRuns: 300 },
    );
  });
});
