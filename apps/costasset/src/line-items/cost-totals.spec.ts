import { assembleTotals, costTotalsPipeline, totalsReadFields, TotalsRow } from './cost-totals';

describe('line-item totals', () => {
  it('count line items one each, or by each rollup row’s count', () => {
    const group = (source: 'rollup' | 'line-items') =>
      (costTotalsPipeline({ period: '202410' }, ['providerName'], source)[1] as { $group: Record<string, unknown> }).$group;
    expect(group('line-items').lineItems).toEqual({ $sum: 1 });
    expect(group('rollup').lineItems).toEqual({ $sum: '$lineItems' });
    expect(group('rollup')._id).toEqual({ providerName: '$providerName' });
    expect(costTotalsPipeline({}, [], 'rollup')[1]).toMatchObject({ $group: { _id: null, cost: { $sum: '$cost' } } });
  });

  it('asks the planner about the groupings, every amount and the currency', () => {
    expect(totalsReadFields(['region'])).toEqual([
      'region',
      'cost',
      'billedCost',
      'effectiveCost',
      'listCost',
      'contractedCost',
      'currency',
    ]);
  });

  it('says its source and keys a missing grouping value as null', () => {
    const rows = [
      {
        _id: { providerName: 'aws' },
        currency: 'USD',
        lineItems: 2,
        cost: 0.30000000000000004,
        billedCost: 1,
        effectiveCost: 0,
        listCost: 0,
        contractedCost: 0,
      },
    ] as unknown as TotalsRow[];
    const answer = assembleTotals(rows, ['providerName', 'region'], { source: 'rollup', rollupLevel: 'month' });
    expect(answer).toMatchObject({ source: 'rollup', rollupLevel: 'month', currency: 'USD' });
    expect(answer.groups).toEqual([
      {
        key: { providerName: 'aws', region: null },
        lineItems: 2,
        cost: 0.30000000000000004,
        billedCost: 1,
        effectiveCost: 0,
        listCost: 0,
        contractedCost: 0,
      },
    ]);
  });
});
