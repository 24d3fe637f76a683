import { RollupAccumulator } from './rollup-accumulator';
import { rollupRow } from './rollup-fields';

describe('RollupAccumulator', () => {
  it('sums a load by dimensions and UTC day as the rollup pipeline groups stored rows (undefined stored as null, absent left out)', () => {
    const sums = new RollupAccumulator();
    const day = new Date('2024-03-05T23:30:00Z');
    sums.add([
      {
        providerName: 'aws',
        region: 'eu-west-1',
        period: '202403',
        chargePeriodStart: day,
        cost: 1.25,
        billedCost: 1,
        effectiveCost: undefined,
      },
      {
        providerName: 'aws',
        region: 'eu-west-1',
        period: '202403',
        chargePeriodStart: new Date('2024-03-05T01:00:00Z'),
        cost: 2,
        billedCost: 3,
      },
      { providerName: 'aws', region: undefined, period: '202403', chargePeriodStart: day, cost: -1, billedCost: -1 },
    ]);
    const rows = sums.rows().map((group) => rollupRow('u', group));
    expect(rows).toEqual([
      expect.objectContaining({
        providerName: 'aws',
        region: 'eu-west-1',
        chargePeriodStart: new Date('2024-03-05T00:00:00Z'),
        cost: 3.25,
        billedCost: 4,
        effectiveCost: 0,
        lineItems: 2,
      }),
      expect.objectContaining({ providerName: 'aws', region: null, cost: -1, lineItems: 1 }),
    ]);
    expect(rows[0]).not.toHaveProperty('serviceName');
  });
});
