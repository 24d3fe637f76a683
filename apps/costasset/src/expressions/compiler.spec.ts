import { Query } from 'mingo';
import { ProblemException } from '@lib/core';
import { Expression } from './ast';
import {
  DIMENSIONS_FIELD,
  MAX_PARAM_BYTES,
  combineFilters,
  compileExpression,
  compileToFilter,
  dimensionField,
  dimensionsRead,
  parameterNames,
} from './compiler';
import { ExpressionError } from './errors';
import { parse } from './parser';
import { toProblem } from './problem';

function compileError(text: string, params: Record<string, unknown> = {}): ExpressionError {
  try {
    compileExpression(text, params as Record<string, string>);
  } catch (error) {
    if (error instanceof ExpressionError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(text)} not to compile`);
}

const envProd = { group: { $eq: 'env' }, key: { $eq: 'stage' }, value: { $eq: 'prod' } };

describe('compileExpression: filters', () => {
  const cases: Array<[string, Record<string, string>, unknown]> = [
    [`providerName == 'aws'`, {}, { providerName: { $eq: 'aws' } }],
    [`region != "eu"`, {}, { region: { $ne: 'eu' } }],
    [`!(region == 'eu')`, {}, { $nor: [{ region: { $eq: 'eu' } }] }],
    [`!!region == 'eu'`, {}, { $nor: [{ $nor: [{ region: { $eq: 'eu' } }] }] }],
    [
      `category == 'a' && serviceName == 'b' && period == 'c'`,
      {},
      { $and: [{ category: { $eq: 'a' } }, { serviceName: { $eq: 'b' } }, { period: { $eq: 'c' } }] },
    ],
    [
      `billingAccountId == 'a' || billingAccountName == 'b' && assetAccountId == 'c'`,
      {},
      { $or: [{ billingAccountId: { $eq: 'a' } }, { $and: [{ billingAccountName: { $eq: 'b' } }, { assetAccountId: { $eq: 'c' } }] }] },
    ],
    [
      `(region == 'a' || region == 'b') && !(region == 'c')`,
      {},
      { $and: [{ $or: [{ region: { $eq: 'a' } }, { region: { $eq: 'b' } }] }, { $nor: [{ region: { $eq: 'c' } }] }] },
    ],
    [`tag('env', 'stage' == 'prod')`, {}, { tags: { $elemMatch: envProd } }],
    [`tag('env', 'stage' != 'prod')`, {}, { $nor: [{ tags: { $elemMatch: envProd } }] }],
    [`!tag('env', 'stage' == 'prod')`, {}, { $nor: [{ tags: { $elemMatch: envProd } }] }],
    [`tag('env', 'stage' == \${stage})`, { stage: 'prod' }, { tags: { $elemMatch: envProd } }],
    [
      `period == \${period} && providerName == 'aws'`,
      { period: '202410', unused: 'x' },
      { $and: [{ period: { $eq: '202410' } }, { providerName: { $eq: 'aws' } }] },
    ],
    [`period == \${p} || period != \${p}`, { p: '' }, { $or: [{ period: { $eq: '' } }, { period: { $ne: '' } }] }],
    [`category == 'it\\'s "quoted" \\\\'`, {}, { category: { $eq: `it's "quoted" \\` } }],
    [`dimension('team') == 'finops'`, {}, { 'dimensions.team': { $eq: 'finops' } }],
    [`dimension('cost-center') != 'cc-1'`, {}, { 'dimensions.cost-center': { $ne: 'cc-1' } }],
    [`!(dimension('team') == 'a')`, {}, { $nor: [{ 'dimensions.team': { $eq: 'a' } }] }],
    [`dimension('team') == \${team}`, { team: 'finops' }, { 'dimensions.team': { $eq: 'finops' } }],
    [
      `dimension('team') == 'a' && (dimension('env') != 'prod' || region == 'eu')`,
      {},
      { $and: [{ 'dimensions.team': { $eq: 'a' } }, { $or: [{ 'dimensions.env': { $ne: 'prod' } }, { region: { $eq: 'eu' } }] }] },
    ],
  ];

  it.each(cases)('%s', (text, params, filter) => {
    expect(compileExpression(text, params)).toEqual(filter);
  });

  it('compileToFilter compiles a parsed tree the same way', () => {
    const tree = parse(`period == \${period}`);
    expect(compileToFilter(tree, { period: '202401' })).toEqual({ period: { $eq: '202401' } });
    expect(compileToFilter(tree, { period: '202402' })).toEqual({ period: { $eq: '202402' } });
  });

  it('gives plain JSON', () => {
    const filter = compileExpression(`!(region == 'a' || tag('g', 'k' != 'v'))`);
    expect(JSON.parse(JSON.stringify(filter))).toEqual(filter);
  });
});

describe('compileExpression: parameters', () => {
  it('names a missing parameter and where its placeholder is', () => {
    const error = compileError(`providerName == 'aws' && period == \${period}`, { other: 'x' });
    expect(error.position).toBe(35);
    expect(error.message).toBe(`missing parameter 'period' for the placeholder \${period} at position 35`);
  });

  it('does not take parameters from the prototype chain', () => {
    expect(compileError(`period == \${constructor}`).message).toContain(`missing parameter 'constructor'`);
    expect(compileError(`period == \${__proto__}`).message).toContain(`missing parameter '__proto__'`);
    expect(compileError(`period == \${toString}`).message).toContain(`missing parameter 'toString'`);
  });

  it('takes an own __proto__ key, as JSON.parse makes it, as a parameter', () => {
    const params = JSON.parse('{"__proto__": "202410"}') as Record<string, string>;
    expect(compileExpression(`period == \${__proto__}`, params)).toEqual({ period: { $eq: '202410' } });
  });

  it.each<[string, unknown, string]>([
    ['a number', 202410, 'a number'],
    ['null', null, 'null'],
    ['an object', { $gt: '' }, 'an object'],
    ['an array', ['a'], 'an array'],
  ])('refuses %s as a parameter value', (_name, value, found) => {
    const error = compileError(`period == \${p}`, { p: value });
    expect(error.position).toBe(10);
    expect(error.message).toBe(`parameter 'p' at position 10 must be a string, found ${found}`);
  });

  it(`accepts a parameter of ${MAX_PARAM_BYTES} bytes and refuses a longer one`, () => {
    expect(compileExpression(`period == \${p}`, { p: 'x'.repeat(1024) })).toEqual({ period: { $eq: 'x'.repeat(1024) } });
    const error = compileError(`period == \${p}`, { p: 'é'.repeat(513) });
    expect(error.position).toBe(10);
    expect(error.message).toBe(`parameter 'p' at position 10 is too long: at most 1024 bytes (1 KiB) are allowed, found 1026 bytes`);
  });

  it('refuses parameters that are not an object', () => {
    expect(() => compileToFilter(parse(`period == 'x'`), null as unknown as Record<string, string>)).toThrow(ExpressionError);
  });

  it('lists parameter names once each, in order of first appearance', () => {
    expect(parameterNames(parse(`region == 'x'`))).toEqual([]);
    expect(
      parameterNames(parse(`period == \${to} || (tag('g', 'k' == \${tag}) && !(region != \${to})) || providerName == \${from}`)),
    ).toEqual(['to', 'tag', 'from']);
    expect(parameterNames(parse(`dimension('team') == \${team} && region != \${r} || dimension('env') != \${team}`))).toEqual([
      'team',
      'r',
    ]);
  });

  it('names a missing parameter of a dimension call and where its placeholder is', () => {
    const error = compileError(`dimension('team') == \${team}`);
    expect(error.position).toBe(21);
    expect(error.message).toBe(`missing parameter 'team' for the placeholder \${team} at position 21`);
  });
});

describe('compileExpression: injection', () => {
  it('refuses a bare word where a value belongs', () => {
    const error = compileError(`providerName == "x" || yes`);
    expect(error.position).toBe(23);
    expect(error.message).toContain(`unknown field 'yes'`);
    expect(compileError(`providerName == true`).message).toContain(`expected a quoted string or \${name} placeholder after '=='`);
    expect(compileError(`true == 'x'`).message).toContain(`expected '&&', '||' or end of expression`);
  });

  it('says everything with `true` and nothing with `false`', () => {
    expect(compileExpression('true')).toEqual({});
    expect(compileExpression('false')).toEqual({ $nor: [{}] });
    expect(compileExpression(`true && billingPeriod == '202410'`)).toEqual({ $and: [{}, { billingPeriod: { $eq: '202410' } }] });
    expect(compileExpression('!true')).toEqual({ $nor: [{}] });
    const items = [{ period: '202410' }, { period: '202411' }];
    expect(items.filter((item) => new Query(compileExpression('true')).test(item))).toHaveLength(2);
    expect(items.filter((item) => new Query(compileExpression('false || period == "202411"')).test(item))).toEqual([{ period: '202411' }]);
    expect(combineFilters(compileExpression('true'), { period: '202410' })).toEqual({ period: '202410' });
  });

  it('keeps a string that looks like an operator as a literal', () => {
    expect(compileExpression(`providerName == "{\\"$gt\\":\\"\\"}"`)).toEqual({ providerName: { $eq: '{"$gt":""}' } });
    expect(compileExpression(`providerName == '$where'`)).toEqual({ providerName: { $eq: '$where' } });
  });

  it('keeps a parameter that looks like syntax as one literal', () => {
    const p = `x" || providerName != "`;
    expect(compileExpression(`providerName == \${p}`, { p })).toEqual({ providerName: { $eq: p } });
    expect(compileExpression(`tag('env', 'stage' == \${p})`, { p: `') || true || ('` })).toEqual({
      tags: { $elemMatch: { group: { $eq: 'env' }, key: { $eq: 'stage' }, value: { $eq: `') || true || ('` } } },
    });
  });

  it('never parses a parameter, even one holding a placeholder', () => {
    expect(compileExpression(`region == \${a}`, { a: '${b}', b: 'eu' })).toEqual({ region: { $eq: '${b}' } });
  });

  it('refuses Mongo operators and paths as field names', () => {
    expect(compileError(`$where == 'sleep(1000)'`).message).toContain(`unknown field '$where' at position 0`);
    expect(compileError(`tags == 'x'`).message).toContain(`unknown field 'tags'`);
    expect(compileError(`$or == 'x'`).position).toBe(0);
    expect(compileError(`__proto__ == 'x'`).message).toContain(`unknown field '__proto__'`);
  });

  it('refuses a hand-built dimension node with an invalid name, at the position 0 of a tree without text', () => {
    const tree = { kind: 'dimension', name: 'team.owner', op: '==', value: { kind: 'literal', value: 'x' } } as unknown as Expression;
    expect(() => compileToFilter(tree)).toThrow(
      new ExpressionError(
        `invalid dimension name "team.owner": a dimension name is ` +
          `1 to 63 lower-case letters, digits, '_' or '-', starting with a letter or digit`,
        0,
      ),
    );
  });

  it('keeps a dimension value that looks like an operator or syntax as a literal', () => {
    expect(compileExpression(`dimension('team') == '{"$gt":""}'`)).toEqual({ 'dimensions.team': { $eq: '{"$gt":""}' } });
    expect(compileExpression(`dimension('team') != \${p}`, { p: `') || true || ('` })).toEqual({
      'dimensions.team': { $ne: `') || true || ('` },
    });
  });

  it('refuses hand-built trees with a field, operator or value outside the language', () => {
    const badField = { kind: 'compare', field: '$where', op: '==', value: { kind: 'literal', value: 'x' } } as unknown as Expression;
    const badOp = { kind: 'compare', field: 'region', op: '$gt', value: { kind: 'literal', value: 'x' } } as unknown as Expression;
    const badValue = {
      kind: 'compare',
      field: 'region',
      op: '==',
      value: { kind: 'literal', value: { $gt: '' } },
    } as unknown as Expression;
    const badTag = {
      kind: 'tag',
      group: { $ne: null },
      key: 'k',
      op: '==',
      value: { kind: 'literal', value: 'x' },
    } as unknown as Expression;
    const emptyAnd = { kind: 'and', operands: [] } as unknown as Expression;
    const badKind = { kind: 'where', code: 'x' } as unknown as Expression;
    const nullOperand = { kind: 'or', operands: [null, undefined] } as unknown as Expression;
    const noValue = { kind: 'tag', group: 'g', key: 'k', op: '==' } as unknown as Expression;
    const dimension = (name: unknown, op = '==', value: unknown = { kind: 'literal', value: 'x' }) =>
      ({ kind: 'dimension', name, op, value }) as unknown as Expression;
    const badDimensions = [
      dimension('a.b'),
      dimension('$where'),
      dimension('Team'),
      dimension(''),
      dimension('a'.repeat(64)),
      dimension({ $ne: null }),
      dimension(undefined),
      dimension('team', '$gt'),
      dimension('team', '==', { kind: 'literal', value: { $gt: '' } }),
      dimension('team', '==', null),
    ];
    for (const tree of [badField, badOp, badValue, badTag, emptyAnd, badKind, nullOperand, noValue, ...badDimensions]) {
      expect(() => compileToFilter(tree)).toThrow(ExpressionError);
    }
  });
});

describe('compiled filters select the intended line items', () => {
  const items = [
    { id: 1, providerName: 'aws', region: 'eu', tags: [{ group: 'env', key: 'stage', value: 'prod' }] },
    { id: 2, providerName: 'aws', region: 'us', tags: [{ group: 'env', key: 'stage', value: 'dev' }] },
    {
      id: 3,
      providerName: 'gcp',
      region: 'eu',
      tags: [
        { group: 'env', key: 'owner', value: 'prod' },
        { group: 'costcenter', key: 'stage', value: 'prod' },
      ],
    },
    { id: 4, providerName: 'azure', region: 'eu', tags: [] },
    { id: 5, providerName: 'aws', region: 'eu' },
    { id: 6, providerName: 'aws', region: 'eu', dimensions: { team: 'finops', env: 'prod' } },
    { id: 7, providerName: 'gcp', region: 'us', dimensions: { team: 'platform' } },
    { id: 8, providerName: 'gcp', region: 'us', dimensions: {} },
  ];
  const select = (text: string): number[] => {
    const query = new Query(compileExpression(text));
    return items.filter((item) => query.test(item)).map((item) => item.id);
  };

  it.each<[string, number[]]>([
    [`providerName == 'aws'`, [1, 2, 5, 6]],
    [`providerName != 'aws'`, [3, 4, 7, 8]],
    [`!(providerName == 'aws')`, [3, 4, 7, 8]],
    [`providerName == 'aws' && region == 'eu'`, [1, 5, 6]],
    [`providerName == 'gcp' || region == 'us'`, [2, 3, 7, 8]],
    [`providerName == 'gcp' || providerName == 'aws' && region == 'us'`, [2, 3, 7, 8]],
    [`(providerName == 'gcp' || providerName == 'aws') && region == 'us'`, [2, 7, 8]],
    // group, key and value must hold in the same tag
    [`tag('env', 'stage' == 'prod')`, [1]],
    // "no tag of that group and key has that value", which includes items without such a tag
    [`tag('env', 'stage' != 'prod')`, [2, 3, 4, 5, 6, 7, 8]],
    [`!tag('env', 'stage' == 'prod')`, [2, 3, 4, 5, 6, 7, 8]],
    [`dimension('team') == 'finops'`, [6]],
    // a missing dimension value differs from every value, like a missing field
    [`dimension('team') != 'finops'`, [1, 2, 3, 4, 5, 7, 8]],
    [`dimension('env') == 'prod' || dimension('team') == 'platform'`, [6, 7]],
    [`dimension('env') != 'prod' && providerName == 'gcp'`, [3, 7, 8]],
    [`tag('env', 'stage' != 'prod') && tag('env', 'stage' == 'dev')`, [2]],
  ])('%s', (text, ids) => {
    expect(select(text)).toEqual(ids);
  });
});

describe('dimension paths', () => {
  it('names the field and the path of a dimension', () => {
    expect(DIMENSIONS_FIELD).toBe('dimensions');
    expect(dimensionField('team')).toBe('dimensions.team');
    expect(dimensionField('cost-center_2')).toBe('dimensions.cost-center_2');
  });

  it('refuses to build a path from a name that is not a dimension name', () => {
    for (const name of ['', 'Team', 'a.b', '$where', '-a', 'a'.repeat(64)])
      expect(() => dimensionField(name)).toThrow(/invalid dimension name/);
  });

  it('lists the dimensions a compiled filter reads, each once, through $and, $or and $nor', () => {
    const filter = compileExpression(
      `dimension('team') == 'a' && !(dimension('env') != 'b' || tag('g', 'k' == 'v')) || region == 'x' || dimension('team') != 'c'`,
    );
    expect([...dimensionsRead(filter)]).toEqual(['team', 'env']);
    expect(dimensionsRead(compileExpression(`region == 'x' && tag('dimensions', 'team' == 'a')`))).toEqual(new Set());
    expect(dimensionsRead(combineFilters(compileExpression(`dimension('a') == 'x'`), compileExpression(`dimension('b') == 'y'`)))).toEqual(
      new Set(['a', 'b']),
    );
  });

  it('reads anything, and leaves checking the names to the caller', () => {
    expect(dimensionsRead({})).toEqual(new Set());
    expect(dimensionsRead(undefined)).toEqual(new Set());
    expect(dimensionsRead(null)).toEqual(new Set());
    expect(dimensionsRead('dimensions.team')).toEqual(new Set());
    expect(dimensionsRead({ dimensions: { team: 'a' }, $and: 'x' })).toEqual(new Set());
    expect(dimensionsRead({ $or: [{ 'dimensions.a.b': { $eq: 'x' } }, { 'dimensions.': { $eq: 'x' } }] })).toEqual(new Set(['a.b', '']));
  });
});

describe('combineFilters', () => {
  const a = { region: { $eq: 'eu' } };
  const b = { providerName: { $eq: 'aws' } };

  it('ANDs the non-empty filters', () => {
    expect(combineFilters(a, {}, undefined, b, null)).toEqual({ $and: [a, b] });
  });

  it('returns a single filter as it is and nothing as {}', () => {
    expect(combineFilters({}, a)).toBe(a);
    expect(combineFilters()).toEqual({});
    expect(combineFilters({}, undefined)).toEqual({});
  });

  it('combines a model expression with visibility expressions', () => {
    const model = compileExpression(`period == \${period}`, { period: '202410' });
    const visibility = [compileExpression(`providerName == 'aws'`), compileExpression(`tag('costcenter', 'cc' == '42')`)];
    expect(combineFilters(model, ...visibility)).toEqual({ $and: [model, ...visibility] });
  });
});

describe('toProblem', () => {
  it('makes a 400 INVALID_EXPRESSION problem with the position', () => {
    const problem = toProblem(compileError(`providerName == `));
    expect(problem).toBeInstanceOf(ProblemException);
    expect(problem.getStatus()).toBe(400);
    expect(problem.toProblem()).toEqual({
      type: 'https://corelite.dev/problems/invalid-expression',
      title: 'Bad Request',
      status: 400,
      code: 'INVALID_EXPRESSION',
      detail: `expected a quoted string or \${name} placeholder after '==' at position 16, found end of expression`,
      position: 16,
    });
  });
});
