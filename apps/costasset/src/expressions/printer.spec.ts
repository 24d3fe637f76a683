import { Expression } from './ast';
import { parse } from './parser';
import { print, quote } from './printer';

describe('print', () => {
  it.each<[string, string]>([
    [`providerName=="aws"`, `providerName == 'aws'`],
    [`region != "it's"`, `region != 'it\\'s'`],
    [`region == 'say "hi" \\\\ bye'`, `region == 'say "hi" \\\\ bye'`],
    [`region=='a'||region=='b'&&region=='c'`, `region == 'a' || region == 'b' && region == 'c'`],
    [`(region=='a'||region=='b')&&region=='c'`, `(region == 'a' || region == 'b') && region == 'c'`],
    [`((region=='a'&&region=='b'))&&region=='c'`, `(region == 'a' && region == 'b') && region == 'c'`],
    [`(region=='a'||region=='b')||region=='c'`, `(region == 'a' || region == 'b') || region == 'c'`],
    [`(region=='a'&&region=='b')||region=='c'`, `region == 'a' && region == 'b' || region == 'c'`],
    [`!region=='a'`, `!(region == 'a')`],
    [`!!region=='a'`, `!!(region == 'a')`],
    [`!(region=='a'&&region=='b')`, `!(region == 'a' && region == 'b')`],
    [`!tag("g","k"!="v")`, `!tag('g', 'k' != 'v')`],
    [`period==\${p}&&tag('g','k'==\${q})`, `period == \${p} && tag('g', 'k' == \${q})`],
    [`dimension( "team" )=="finops"`, `dimension('team') == 'finops'`],
    [`dimension('cost-center_1')!=\${cc}`, `dimension('cost-center_1') != \${cc}`],
    [`!dimension('team')=='a'`, `!(dimension('team') == 'a')`],
    [`dimension('team')=='it\\'s'||!(dimension('env')!='\\\${x}')`, `dimension('team') == 'it\\'s' || !(dimension('env') != '\\\${x}')`],
  ])('%s prints as %s', (text, printed) => {
    const tree = parse(text);
    expect(print(tree)).toBe(printed);
    expect(parse(printed)).toEqual(tree);
  });

  it('keeps nesting that the parser would otherwise flatten', () => {
    const a: Expression = { kind: 'compare', field: 'region', op: '==', value: { kind: 'literal', value: 'a' } };
    const tree: Expression = { kind: 'and', operands: [a, { kind: 'and', operands: [a, a] }] };
    expect(print(tree)).toBe(`region == 'a' && (region == 'a' && region == 'a')`);
    expect(parse(print(tree))).toEqual(tree);
  });

  it('prints a hand-built dimension node so that it parses back to itself', () => {
    const tree: Expression = { kind: 'dimension', name: 'team', op: '!=', value: { kind: 'param', name: 'team' } };
    expect(print(tree)).toBe(`dimension('team') != \${team}`);
    expect(parse(print(tree))).toEqual(tree);
    const negated: Expression = { kind: 'not', operand: tree };
    expect(print(negated)).toBe(`!(dimension('team') != \${team})`);
    expect(parse(print(negated))).toEqual(negated);
  });

  it('quotes with single quotes, escaping only backslashes, single quotes and the dollar of ${', () => {
    expect(quote(`a'b"c\\d\n`)).toBe(`'a\\'b"c\\\\d\n'`);
    // the text ${a} is a literal, never read back as a (refused) quoted placeholder
    expect(quote('cost ${a} $5 {b}')).toBe(`'cost \\\${a} $5 {b}'`);
    expect(parse(`region == ${quote('${a}')}`)).toEqual({
      kind: 'compare',
      field: 'region',
      op: '==',
      value: { kind: 'literal', value: '${a}' },
    });
  });
});
