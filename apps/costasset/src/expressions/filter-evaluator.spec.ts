import fc from 'fast-check';
import { Query } from 'mingo';
import { ComparisonOperator, Expression, ExpressionField } from './ast';
import { compileToFilter } from './compiler';
import { compileFilter, evaluateFilter } from './filter-evaluator';

type Operands = [Expression, Expression, ...Expression[]];
const FIELDS: ExpressionField[] = ['providerName', 'billingAccountId', 'serviceName'];
const VALUES = ['a', 'b'];
const DIMENSIONS = ['team', 'cost-center'];

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
    fc.record({
      kind: fc.constant('dimension' as const),
      name: fc.constantFrom(...DIMENSIONS),
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
    // absent, empty, or holding some of the dimensions
    dimensions: fc.record({ team: fc.constantFrom(...VALUES), 'cost-center': fc.constantFrom(...VALUES) }, { requiredKeys: [] }),
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

  it('with known dimensions, answers only what every value of the unknown fields and dimensions would answer', () => {
    const known = new Set<string>(['providerName', 'dimensions.team']);
    fc.assert(
      fc.property(tree, doc, doc, (expression, row, other) => {
        const filter = compileToFilter(expression) as Record<string, unknown>;
        const verdict = evaluateFilter(filter, row, known);
        if (verdict === undefined) return;
        const dimensions: Record<string, string> = { ...other.dimensions };
        delete dimensions.team;
        if (row.dimensions?.team !== undefined) dimensions.team = row.dimensions.team;
        const completed = { ...other, providerName: row.providerName, dimensions };
        if (row.providerName === undefined) delete completed.providerName;
        expect(new Query(filter).test(completed)).toBe(verdict);
      }),
      { numRuns: 2000 },
    );
  });

  it('reads a dimension from the nested dimensions object, a missing one being absent', () => {
    const team = (op: '$eq' | '$ne', value: string) => ({ 'dimensions.team': { [op]: value } });
    expect(evaluateFilter(team('$eq', 'a'), { dimensions: { team: 'a' } })).toBe(true);
    expect(evaluateFilter(team('$eq', 'a'), { dimensions: { team: 'b' } })).toBe(false);
    expect(evaluateFilter(team('$ne', 'a'), { dimensions: { team: 'b' } })).toBe(true);
    for (const row of [{}, { dimensions: {} }, { dimensions: { env: 'a' } }, { dimensions: null }, { 'dimensions.team': 'a' }]) {
      expect(evaluateFilter(team('$eq', 'a'), row)).toBe(false);
      expect(evaluateFilter(team('$ne', 'a'), row)).toBe(true);
      expect(evaluateFilter(team('$eq', 'a'), row)).toBe(new Query(team('$eq', 'a')).test(row));
      expect(evaluateFilter(team('$ne', 'a'), row)).toBe(new Query(team('$ne', 'a')).test(row));
    }
    // names are own properties only, never the prototype's
    expect(evaluateFilter({ 'dimensions.constructor': { $eq: 'x' } }, { dimensions: {} })).toBe(false);
    expect(evaluateFilter({ 'dimensions.constructor': { $ne: 'x' } }, { dimensions: {} })).toBe(true);
  });

  it('takes a dimension as unknown unless its dotted key is known', () => {
    const filter = { $or: [{ billingAccountId: { $eq: 'a' } }, { 'dimensions.team': { $eq: 'x' } }] };
    const row = { billingAccountId: 'b', dimensions: { team: 'x' } };
    expect(evaluateFilter(filter, row, new Set(['billingAccountId']))).toBeUndefined();
    expect(evaluateFilter(filter, row, new Set(['billingAccountId', 'dimensions']))).toBeUndefined();
    expect(evaluateFilter(filter, row, new Set(['billingAccountId', 'dimensions.team']))).toBe(true);
    expect(evaluateFilter(filter, { billingAccountId: 'b' }, new Set(['billingAccountId', 'dimensions.team']))).toBe(false);
    expect(evaluateFilter({ 'dimensions.team': { $ne: 'x' } }, {}, new Set(['dimensions.team']))).toBe(true);
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

describe('compileFilter', () => {
  it('answers as evaluateFilter with every field known, on every compiled expression and document', () => {
    fc.assert(
      fc.property(tree, fc.array(doc, { minLength: 1, maxLength: 4 }), (expression, rows) => {
        const filter = compileToFilter(expression) as Record<string, unknown>;
        const predicate = compileFilter(filter);
        for (const row of rows) expect(predicate(row)).toBe(evaluateFilter(filter, row));
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses operators the compiler never emits when compiled, not when first run', () => {
    expect(() => compileFilter({ cost: { $gt: 1 } })).toThrow(/\$gt/);
    expect(() => compileFilter({ $where: 'true' })).toThrow(/\$where/);
  });
});
