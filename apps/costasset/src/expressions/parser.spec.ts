import { ComparisonOperator, Expression, ExpressionField, ValueNode, positionOf } from './ast';
import { ExpressionError } from './errors';
import { EXPRESSION_LIMITS, parse } from './parser';

const literal = (value: string): ValueNode => ({ kind: 'literal', value });
const param = (name: string): ValueNode => ({ kind: 'param', name });
const compare = (field: ExpressionField, op: ComparisonOperator, value: string | ValueNode): Expression => ({
  kind: 'compare',
  field,
  op,
  value: typeof value === 'string' ? literal(value) : value,
});
const tag = (group: string, key: string, op: ComparisonOperator, value: string | ValueNode): Expression => ({
  kind: 'tag',
  group,
  key,
  op,
  value: typeof value === 'string' ? literal(value) : value,
});
const dimension = (name: string, op: ComparisonOperator, value: string | ValueNode): Expression => ({
  kind: 'dimension',
  name,
  op,
  value: typeof value === 'string' ? literal(value) : value,
});
const and = (first: Expression, second: Expression, ...rest: Expression[]): Expression => ({
  kind: 'and',
  operands: [first, second, ...rest],
});
const or = (first: Expression, second: Expression, ...rest: Expression[]): Expression => ({
  kind: 'or',
  operands: [first, second, ...rest],
});
const not = (operand: Expression): Expression => ({ kind: 'not', operand });

function parseError(text: string): ExpressionError {
  try {
    parse(text);
  } catch (error) {
    if (error instanceof ExpressionError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(text)} not to parse`);
}

describe('parse: valid expressions', () => {
  const cases: Array<[string, Expression]> = [
    [`providerName == 'aws'`, compare('providerName', '==', 'aws')],
    [`region != "eu-west-1"`, compare('region', '!=', 'eu-west-1')],
    [`period=='202410'`, compare('period', '==', '202410')],
    [` \t\n billingAccountId \r\n== '1' `, compare('billingAccountId', '==', '1')],
    [`billingAccountName == ''`, compare('billingAccountName', '==', '')],
    [`assetAccountId == 'a' && category == 'b'`, and(compare('assetAccountId', '==', 'a'), compare('category', '==', 'b'))],
    [`serviceName == 'a' || serviceName == 'b'`, or(compare('serviceName', '==', 'a'), compare('serviceName', '==', 'b'))],
    [
      `region == 'a' && region == 'b' && region == 'c'`,
      and(compare('region', '==', 'a'), compare('region', '==', 'b'), compare('region', '==', 'c')),
    ],
    // && binds tighter than ||
    [
      `region == 'a' || region == 'b' && region == 'c'`,
      or(compare('region', '==', 'a'), and(compare('region', '==', 'b'), compare('region', '==', 'c'))),
    ],
    [
      `region == 'a' && region == 'b' || region == 'c'`,
      or(and(compare('region', '==', 'a'), compare('region', '==', 'b')), compare('region', '==', 'c')),
    ],
    [
      `(region == 'a' || region == 'b') && region == 'c'`,
      and(or(compare('region', '==', 'a'), compare('region', '==', 'b')), compare('region', '==', 'c')),
    ],
    // parentheses group without adding a node, so a parenthesised `and` stays a separate operand
    [`((region == 'a'))`, compare('region', '==', 'a')],
    [
      `(region == 'a' && region == 'b') && region == 'c'`,
      and(and(compare('region', '==', 'a'), compare('region', '==', 'b')), compare('region', '==', 'c')),
    ],
    [`!region == 'a'`, not(compare('region', '==', 'a'))],
    [`!!region == 'a'`, not(not(compare('region', '==', 'a')))],
    [`! ( ! (region == 'a'))`, not(not(compare('region', '==', 'a')))],
    [`!region == 'a' && region == 'b'`, and(not(compare('region', '==', 'a')), compare('region', '==', 'b'))],
    [`!(region == 'a' || region == 'b')`, not(or(compare('region', '==', 'a'), compare('region', '==', 'b')))],
    [`category == 'it\\'s'`, compare('category', '==', "it's")],
    [`category == "say \\"hi\\""`, compare('category', '==', 'say "hi"')],
    [`category == 'back\\\\slash'`, compare('category', '==', 'back\\slash')],
    [`category == "it's"`, compare('category', '==', "it's")],
    [`category == 'say "hi"'`, compare('category', '==', 'say "hi"')],
    [`category == 'ünïcødé ✓ 🚀'`, compare('category', '==', 'ünïcødé ✓ 🚀')],
    [`category == '&& || ( ) == ! \\\${x}'`, compare('category', '==', '&& || ( ) == ! ${x}')],
    [`region == '$ {x} \${ ${'$'}{1}'`, compare('region', '==', '$ {x} ${ ${1}')],
    [`period == \${period}`, compare('period', '==', param('period'))],
    [`period != \${_Period_2}`, compare('period', '!=', param('_Period_2'))],
    [`tag('env', 'stage' == 'prod')`, tag('env', 'stage', '==', 'prod')],
    [`tag ( "costcenter" , "owner" != "x" )`, tag('costcenter', 'owner', '!=', 'x')],
    [`tag('env', 'stage' == \${stage})`, tag('env', 'stage', '==', param('stage'))],
    [`!tag('env', 'stage' == 'prod')`, not(tag('env', 'stage', '==', 'prod'))],
    [`dimension('team') == 'finops'`, dimension('team', '==', 'finops')],
    [`dimension ( "cost-center_2" ) != "x"`, dimension('cost-center_2', '!=', 'x')],
    [`dimension('0')==''`, dimension('0', '==', '')],
    [`dimension('${'a'.repeat(63)}') == 'v'`, dimension('a'.repeat(63), '==', 'v')],
    [`dimension('team') == \${team}`, dimension('team', '==', param('team'))],
    [`!dimension('team') == 'a'`, not(dimension('team', '==', 'a'))],
    [
      `dimension('team') == 'a' || tag('team', 'owner' == 'a') && region == 'a'`,
      or(dimension('team', '==', 'a'), and(tag('team', 'owner', '==', 'a'), compare('region', '==', 'a'))),
    ],
    [
      `period == \${period} && providerName == 'aws' && tag('costcenter', 'cc' == '42')`,
      and(compare('period', '==', param('period')), compare('providerName', '==', 'aws'), tag('costcenter', 'cc', '==', '42')),
    ],
  ];

  it.each(cases)('%s', (text, tree) => {
    expect(parse(text)).toEqual(tree);
  });

  it('records where each node starts, beside the tree', () => {
    const tree = parse(`  !(region == 'a') || tag('g', 'k' == \${p})`);
    expect(positionOf(tree)).toBe(2);
    if (tree.kind !== 'or') throw new Error('expected or');
    const [negation, tagCall] = tree.operands;
    expect(positionOf(negation)).toBe(2);
    if (negation.kind !== 'not' || tagCall.kind !== 'tag') throw new Error('unexpected shape');
    expect(positionOf(negation.operand)).toBe(4);
    expect(positionOf(tagCall)).toBe(22);
    expect(positionOf(tagCall.value)).toBe(38);
  });

  it('records where a dimension call and its value start', () => {
    const tree = parse(`  dimension('team') != \${t}`);
    expect(positionOf(tree)).toBe(2);
    if (tree.kind !== 'dimension') throw new Error('expected dimension');
    expect(positionOf(tree.value)).toBe(23);
  });
});

describe('parse: errors', () => {
  const cases: Array<[string, string, number, string]> = [
    ['unknown field', `providerName == 'a' && vendor == 'b'`, 23, `unknown field 'vendor' at position 23: expected one of providerName,`],
    ['field names are case-sensitive', `ProviderName == 'a'`, 0, `unknown field 'ProviderName' at position 0`],
    ['a Mongo operator as field', `$where == 'a'`, 0, `unknown field '$where' at position 0`],
    ['a dotted path as field', `tags.value == 'a'`, 0, `unknown field 'tags.value' at position 0`],
    [
      'missing value',
      `providerName == `,
      16,
      `expected a quoted string or \${name} placeholder after '==' at position 16, found end of expression`,
    ],
    [
      'bare word as value',
      `providerName != aws`,
      16,
      `expected a quoted string or \${name} placeholder after '!=' at position 16, found 'aws'`,
    ],
    ['missing operator', `providerName 'a'`, 13, `expected '==' or '!=' after 'providerName' at position 13, found a quoted string`],
    [
      'unterminated string',
      `region == 'eu-west-1`,
      10,
      `unterminated string: expected a closing ' for the string at position 10, found end of expression`,
    ],
    ['string ending in a backslash', `region == "a\\`, 10, `unterminated string: expected a closing " for the string at position 10`],
    ['quote styles do not mix', `region == 'a"`, 10, `unterminated string`],
    [
      'placeholder inside quotes',
      `period == '\${period}'`,
      11,
      `placeholder \${period} inside quotes at position 11: a placeholder is filled only without quotes (<field> ` +
        `== \${period}), and always as one literal string; for the text \${period} itself write \\\${period}`,
    ],
    [
      'placeholder inside double quotes, after text',
      `tag('g', 'k' == "acct-\${id}")`,
      22,
      `placeholder \${id} inside quotes at position 22`,
    ],
    ['unknown escape', `region == 'a\\nb'`, 12, `unsupported escape '\\n' at position 12: only \\\\, \\', \\" and \\$ are allowed`],
    ['===', `region === 'a'`, 7, `expected '==' at position 7, found '===' (there is no '===' operator)`],
    ['!==', `region !== 'a'`, 7, `expected '!=' at position 7, found '!==' (there is no '!==' operator)`],
    ['single =', `region = 'a'`, 7, `expected '==' at position 7, found '='`],
    ['single &', `region == 'a' & region == 'b'`, 14, `expected '&&' at position 14, found '&'`],
    ['single |', `region == 'a' | region == 'b'`, 14, `expected '||' at position 14, found '|'`],
    [
      'trailing &&',
      `region == 'a' &&`,
      16,
      `expected a comparison, tag(...), dimension(...), '!' or '(' after '&&' at position 16, found end of expression`,
    ],
    [
      'trailing ||',
      `region == 'a' || `,
      17,
      `expected a comparison, tag(...), dimension(...), '!' or '(' after '||' at position 17, found end of expression`,
    ],
    ['leading &&', `&& region == 'a'`, 0, `expected a comparison, tag(...), dimension(...), '!' or '(' at position 0, found '&&'`],
    [
      'dangling !',
      `region == 'a' && !`,
      18,
      `expected a comparison, tag(...), dimension(...), '!' or '(' after '!' at position 18, found end of expression`,
    ],
    ['empty', ``, 0, `expected a comparison, tag(...), dimension(...), '!' or '(' at position 0, found end of expression`],
    ['only whitespace', `   `, 3, `found end of expression`],
    [
      'unclosed (',
      `(region == 'a' || region == 'b'`,
      31,
      `expected ')' at position 31 to close the '(' at position 0, found end of expression`,
    ],
    ['unclosed inner (', `((region == 'a') && region == 'b'`, 33, `expected ')' at position 33 to close the '(' at position 0`],
    ['extra )', `region == 'a')`, 13, `unexpected ')' at position 13: there is no '(' to close`],
    ['empty ()', `()`, 1, `expected a comparison, tag(...), dimension(...), '!' or '(' at position 1, found ')'`],
    [
      'juxtaposed comparisons',
      `region == 'a' region == 'b'`,
      14,
      `expected '&&', '||' or end of expression at position 14, found 'region'`,
    ],
    [
      'unknown function',
      `lower(region) == 'a'`,
      0,
      `unknown function 'lower' at position 0: the only functions are ` +
        `tag('<group>', '<key>' == '<value>') and dimension('<name>') == '<value>'`,
    ],
    ['unknown field names both functions', `vendor == 'a'`, 0, `billingPeriod, tag(...) or dimension(...)`],
    ['dimension without (', `dimension == 'a'`, 10, `expected '(' after 'dimension' at position 10, found '=='`],
    [
      'dimension name not quoted',
      `dimension(team) == 'a'`,
      10,
      `expected a quoted dimension name after 'dimension(' at position 10, found 'team'`,
    ],
    ['dimension name as placeholder', `dimension(\${d}) == 'a'`, 10, `found placeholder \${d}`],
    ['dimension without name', `dimension() == 'a'`, 10, `expected a quoted dimension name after 'dimension(' at position 10, found ')'`],
    [
      'dimension name in upper case',
      `region == 'a' && dimension('Team') == 'a'`,
      27,
      `invalid dimension name "Team" at position 27: ` +
        `a dimension name is 1 to 63 lower-case letters, digits, '_' or '-', starting with a letter or digit`,
    ],
    ['empty dimension name', `dimension('') == 'a'`, 10, `invalid dimension name "" at position 10`],
    ['dimension name starting with a dash', `dimension('-team') == 'a'`, 10, `invalid dimension name "-team"`],
    ['dotted dimension name', `dimension("team.owner") == 'a'`, 10, `invalid dimension name "team.owner"`],
    ['dimension name with $', `dimension('$where') == 'a'`, 10, `invalid dimension name "$where"`],
    ['dimension name with a space', `dimension(' team') == 'a'`, 10, `invalid dimension name " team"`],
    ['dimension name of 64 characters', `dimension('${'a'.repeat(64)}') == 'a'`, 10, `invalid dimension name "${'a'.repeat(40)}…"`],
    ['dimension name with non-ASCII', `dimension('équipe') == 'a'`, 10, `invalid dimension name "équipe"`],
    [
      'dimension with the comparison inside',
      `dimension('team' == 'a')`,
      17,
      `expected ')' at position 17 to close the 'dimension(' at position 9, found '=='`,
    ],
    ['dimension with two arguments', `dimension('team', 'owner') == 'a'`, 16, `expected ')' at position 16 to close the 'dimension('`],
    [
      'dimension without operator',
      `dimension('team')`,
      17,
      `expected '==' or '!=' after 'dimension(...)' at position 17, found end of expression`,
    ],
    [
      'dimension without value',
      `dimension('team') == && region == 'a'`,
      21,
      `expected a quoted string or \${name} placeholder after '==' at position 21, found '&&'`,
    ],
    [
      'dimension unclosed',
      `dimension('team' `,
      17,
      `expected ')' at position 17 to close the 'dimension(' at position 9, found end of expression`,
    ],
    ['tag without (', `tag == 'a'`, 4, `expected '(' after 'tag' at position 4, found '=='`],
    ['tag group not quoted', `tag(env, 'k' == 'v')`, 4, `expected a quoted tag group after 'tag(' at position 4, found 'env'`],
    ['tag group as placeholder', `tag(\${g}, 'k' == 'v')`, 4, `found placeholder \${g}`],
    ['tag without comma', `tag('env' 'k' == 'v')`, 10, `expected ',' after the tag group at position 10, found a quoted string`],
    ['tag key missing', `tag('env', == 'v')`, 11, `expected a quoted tag key after ',' at position 11, found '=='`],
    ['tag without operator', `tag('env', 'k')`, 14, `expected '==' or '!=' after the tag key at position 14, found ')'`],
    [
      'tag without value',
      `tag('env', 'k' == )`,
      18,
      `expected a quoted string or \${name} placeholder after '==' at position 18, found ')'`,
    ],
    ['tag unclosed', `tag('env', 'k' == 'v'`, 21, `expected ')' at position 21 to close the 'tag(' at position 3, found end of expression`],
    [
      'empty placeholder',
      `period == \${}`,
      12,
      `expected a placeholder name ([A-Za-z_][A-Za-z0-9_]*) after '\${' at position 12, found '}'`,
    ],
    ['placeholder name starting with a digit', `period == \${1p}`, 12, `found '1'`],
    [
      'placeholder name with a dash',
      `period == \${a-b}`,
      13,
      `expected '}' at position 13 to close the placeholder started at position 10, found '-'`,
    ],
    [
      'unclosed placeholder',
      `period == \${p`,
      13,
      `expected '}' at position 13 to close the placeholder started at position 10, found end of expression`,
    ],
    ['placeholder with spaces', `period == \${ p }`, 12, `found U+0020`],
    ['unexpected character', `region == 'a' # comment`, 14, `unexpected character '#' at position 14`],
    ['non-ASCII field', `region == 'a' && régïon == 'b'`, 17, `unknown field 'régïon' at position 17`],
    ['control character', `region == 'a'\u0000`, 13, `unexpected character U+0000 at position 13`],
  ];

  it.each(cases)('%s', (_name, text, position, message) => {
    const error = parseError(text);
    expect(error).toBeInstanceOf(ExpressionError);
    expect(error.position).toBe(position);
    expect(error.message).toContain(message);
  });

  it('reports the first error in the text', () => {
    expect(parseError(`vendor == 'a' # comment`).position).toBe(0);
    expect(parseError(`(region == 'a' # comment`).position).toBe(15);
  });

  it('refuses a non-string', () => {
    expect(() => parse(42 as unknown as string)).toThrow(ExpressionError);
  });
});

describe('parse: limits', () => {
  it(`accepts ${EXPRESSION_LIMITS.maxBytes} bytes and refuses one more, at the first byte over`, () => {
    const prefix = `region == '`;
    const fitting = prefix + 'x'.repeat(EXPRESSION_LIMITS.maxBytes - prefix.length - 1) + `'`;
    expect(Buffer.byteLength(fitting)).toBe(4096);
    expect(() => parse(fitting)).not.toThrow();

    const error = parseError(fitting + ' ');
    expect(error.position).toBe(4096);
    expect(error.message).toBe('expression too long at position 4096: at most 4096 bytes (4 KiB) are allowed, found 4097 bytes');
  });

  it('counts UTF-8 bytes, not characters', () => {
    const prefix = `region == '`;
    // 4 bytes and 2 UTF-16 code units per emoji
    const text = prefix + '🚀'.repeat(1100) + `'`;
    const error = parseError(text);
    expect(error.message).toContain(`found ${prefix.length + 4400 + 1} bytes`);
    const emojisThatFit = Math.floor((4096 - prefix.length) / 4);
    expect(error.position).toBe(prefix.length + emojisThatFit * 2);
  });

  it('allows 32 levels of nesting and refuses the 33rd, at its position', () => {
    expect(() => parse('('.repeat(32) + `region == 'a'` + ')'.repeat(32))).not.toThrow();
    expect(() => parse('!'.repeat(32) + `region == 'a'`)).not.toThrow();
    expect(() => parse('!('.repeat(16) + `region == 'a'` + ')'.repeat(16))).not.toThrow();

    const tooDeep = parseError('('.repeat(33) + `region == 'a'` + ')'.repeat(33));
    expect(tooDeep.position).toBe(32);
    expect(tooDeep.message).toBe(`nesting too deep at position 32: at most 32 nested '(' and '!' are allowed`);
    expect(parseError('!'.repeat(33) + `region == 'a'`).position).toBe(32);
    expect(parseError(`region == 'a' && ` + '!('.repeat(17) + `region == 'a'` + ')'.repeat(17)).position).toBe(17 + 32);
  });

  it('counts depth per branch, not in total', () => {
    const nested = '('.repeat(30) + `region == 'a'` + ')'.repeat(30);
    expect(() => parse(Array(5).fill(nested).join(' && '))).not.toThrow();
  });

  it('allows 200 comparisons and refuses the 201st, at its position', () => {
    const comparison = `region == 'a'`;
    expect(() => parse(Array(200).fill(comparison).join('&&'))).not.toThrow();
    const error = parseError(Array(201).fill(comparison).join('&&'));
    expect(error.position).toBe(200 * (comparison.length + 2));
    expect(error.message).toBe(
      `too many comparisons at position ${error.position}: at most 200 comparisons, tag(...) and dimension(...) calls are allowed`,
    );
  });

  it('counts tag calls as comparisons', () => {
    const text = [...Array(150).fill(`region == 'a'`), ...Array(51).fill(`tag('g','k'=='v')`)].join('||');
    expect(parseError(text).message).toContain('too many comparisons');
  });

  it('counts dimension calls as comparisons, at the position of the call', () => {
    const call = `dimension('t')=='v'`;
    expect(() => parse([...Array(100).fill(`region=='a'`), ...Array(100).fill(call)].join('||'))).not.toThrow();
    const error = parseError([...Array(150).fill(`region=='a'`), ...Array(51).fill(call)].join('||'));
    expect(error.message).toContain('too many comparisons');
    expect(error.position).toBe(150 * (`region=='a'`.length + 2) + 50 * (call.length + 2));
  });
});
