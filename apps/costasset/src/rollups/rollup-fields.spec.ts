import { compileExpression } from '../expressions';
import { filterFields, rollupCanAnswer, rollupRow } from './rollup-fields';

describe('filterFields', () => {
  it('lists the fields a filter reads, at any depth, never operator names or operands', () => {
    const filter = compileExpression(`(providerName == "aws" || !(region != "x")) && tag('team', 'owner' == 'a')`);
    expect([...filterFields(filter)].sort()).toEqual(['providerName', 'region', 'tags']);
    expect([...filterFields({ $nor: [{}] })]).toEqual([]);
    expect([...filterFields({ period: { $gte: '202401', $lte: '202403' }, chargePeriodStart: { $lt: new Date() } })]).toEqual(['period', 'chargePeriodStart']);
  });
});

describe('rollupCanAnswer', () => {
  it('answers from rollups only when every field read is rolled up and no amount is compared', () => {
    expect(rollupCanAnswer(compileExpression('billingAccountId == "1" && category != "Storage"'), ['providerName', 'cost'])).toBe(true);
    expect(rollupCanAnswer({}, ['resourceId', 'providerName', 'cost'])).toBe(false);
    expect(rollupCanAnswer(compileExpression(`tag('env', 'stage' == 'prod')`), ['period'])).toBe(false);
    expect(rollupCanAnswer({ cost: { $gt: 10 } }, ['period'])).toBe(false);
    expect(rollupCanAnswer({}, ['tags'])).toBe(false);
  });
});

describe('rollupRow', () => {
  it('keeps the dimensions the line items hold (null included) and leaves out the missing ones', () => {
    const row = rollupRow('u1', { _id: { providerName: 'aws', region: null, day: '2024-01-31' }, cost: 1.5, billedCost: 2, lineItems: 3 } as never);
    expect(row).toEqual({
      uploadRefId: 'u1',
      chargePeriodStart: new Date('2024-01-31T00:00:00Z'),
      lineItems: 3,
      providerName: 'aws',
      region: null,
      cost: 1.5,
      billedCost: 2,
      effectiveCost: 0,
      listCost: 0,
      contractedCost: 0,
    });
  });
});
