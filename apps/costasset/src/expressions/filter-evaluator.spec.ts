import fc from 'fast-check';
import { Query } from 'mingo';
import { ComparisonOperator, Expression, ExpressionField } from './ast';
import { compileToFilter } from './compiler';
import { evaluateFilter } from './filter-evaluator';

type Operands = [Expression, Expression, ...Expression[]];
const FIELDS: ExpressionField[] = ['providerName', 'billingAccountId', 'serviceName'];
const VALUES = ['a', 'b'];

const tree: fc.Arbitrary<Expression> = fc.letrec<{ expression: Expression }>((tie) => ({
  expression: fc.oneof(
    { maxDepth: 3, depthIdentifier: 'expression' },
    fc.record({
      kind: fc.constant('compare' as const),
      field: fc.constantFrom(...FIELDS),
      op: fc.constantFrom<ComparisonOperator>('==', '!='),
      value: fc.constantFrom(...VALUES).map((value) => ({ kind: 'literal' as const, value })),
    }),
    fc.record({
      kind: fc.constant('tag' as const),
      group: fc.constant('team'),
      key: fc.constant('owner'),
      op: fc.constantFrom<ComparisonOperator>('==', '!='),
      value: fc.constantFrom(...VALUES).map((value) => ({ kind: 'literal' as const, value })),
    }),
    fc.boolean().map((value): Expression => ({ kind: 'constant', value })),
    tie('expression').map((operand): Expression => ({ kind: 'not', operand })),
    fc
      .array(tie('expression'), { minLength: 2, maxLength: 3 })
      .map((operands): Expression => ({ kind: 'and', operands: operands as Operands })),
    fc
      .array(tie('expression'), { minLength: 2, maxLength: 3 })
      .map((operands): Expression => ({ kind: 'or', operands: operands as Operands })),
  ),
})).expression;

const doc = fc.record(
  {
    providerName: fc.constantFrom(...VALUES),
    billingAccountId: fc.constantFrom(...VALUES),
    serviceName: fc.constantFrom(...VALUES),
    tags: fc.array(fc.record({ group: fc.constant('team'), key: fc.constant('owner'), value: fc.constantFrom(...VALUES) }), {
      maxLength: 2,
    }),
  },
  { requiredKeys: ['tags'] },
);

describe('evaluateFilter', () => {
  it('agrees with a MongoDB query engine on every compiled expression and document', () => {
    fc.assert(
      fc.property(tree, doc, (expression, row) => {
        const filter = compileToFilter(expression) as Record<string, unknown>;
        expect(evaluateFilter(filter, row)).toBe(new Query(filter).test(row));
      }),
      { numRuns: 2000 },
    );
  });

  it('with known fields only, answers only what every value of the unknown fields would answer', () => {
    const known = new Set<string>(['providerName', 'billingAccountId']);
    fc.assert(
      fc.property(tree, doc, doc, (expression, row, other) => {
        const filter = compileToFilter(expression) as Record<string, unknown>;
        const verdict = evaluateFilter(filter, row, known);
        if (verdict === undefined) return;
        const completed = { ...other, providerName: row.providerName, billingAccountId: row.billingAccountId };
        expect(new Query(filter).test(completed)).toBe(verdict);
      }),
      { numRuns: 2000 },
    );
  });

  it('reads a visibility that names an account as deciding account-level scopes', () => {
    const filter = {
      $or: [
        { billingAccountId: { $eq: 'a' } },
        { tags: { $elemMatch: { group: { $eq: 'team' }, key: { $eq: 'owner' }, value: { $eq: 'x' } } } },
      ],
    };
    const known = new Set(['providerName', 'billingAccountId', 'billingPeriod']);
    expect(evaluateFilter(filter, { billingAccountId: 'a' }, known)).toBe(true);
    expect(evaluateFilter(filter, { billingAccountId: 'b' }, known)).toBeUndefined();
    expect(evaluateFilter({ billingAccountId: { $eq: 'a' } }, { billingAccountId: 'b' }, known)).toBe(false);
    expect(evaluateFilter({ _id: { $in: [] } }, { billingAccountId: 'a' })).toBe(false);
    expect(evaluateFilter({}, {}, known)).toBe(true);
  });

  it('refuses operators the compiler never emits, rather than guessing', () => {
    expect(() => evaluateFilter({ cost: { $gt: 1 } }, { cost: 2 })).toThrow(/\$gt/);
    expect(() => evaluateFilter({ $where: 'true' }, {})).toThrow(/\$where/);
  });
});
