import { compileExpression } from '../expressions';
import { filterFields, monthlyGroups, monthlyRollupRow, rollupCanAnswer, rollupLevelFor, rollupRow, summaryGroups } from './rollup-fields';

describe('filterFields', () => {
  it('lists the fields a filter reads, at any depth, never operator names or operands', () => {
    const filter = compileExpression(`(providerName == "aws" || !(region != "x")) && tag('team', 'owner' == 'a')`);
    expect([...filterFields(filter)].sort()).toEqual(['providerName', 'region', 'tags']);
    expect([...filterFields({ $nor: [{}] })]).toEqual([]);
    expect([...filterFields({ period: { $gte: '202401', $lte: '202403' }, chargePeriodStart: { $lt: new Date() } })]).toEqual([
      'period',
      'chargePeriodStart',
    ]);
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
    const row = rollupRow('u1', {
      _id: { providerName: 'aws', region: null, day: '2024-01-31' },
      cost: 1.5,
      billedCost: 2,
      lineItems: 3,
    } as never);
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

describe('rollupLevelFor', () => {
  it('answers from the monthly rollups unless the filter or the fields read touch the day of the charges', () => {
    expect(rollupLevelFor(compileExpression('period == "202401" && providerName != "aws"'), ['category', 'cost'])).toBe('month');
    expect(rollupLevelFor({ period: { $gte: '202401', $lte: '202403' } }, ['period', 'cost'])).toBe('month');
    expect(rollupLevelFor({ chargePeriodStart: { $gte: new Date('2024-01-05T00:00:00Z') } }, ['cost'])).toBe('day');
    expect(rollupLevelFor({ $or: [{ providerName: 'aws' }, { chargePeriodStart: null }] }, ['cost'])).toBe('day');
    expect(rollupLevelFor({}, ['chargePeriodStart', 'cost'])).toBe('day');
  });
});

describe('monthlyGroups', () => {
  it('sums the daily groups of the same dimensions over their days, a missing dimension apart from a null one', () => {
    const day = (id: Record<string, string | null>, cost: number, lineItems: number) =>
      ({ _id: id, cost, billedCost: cost * 2, lineItems }) as never;
    const months = monthlyGroups([
      day({ providerName: 'aws', region: null, period: '202401', day: '2024-01-01' }, 1.5, 2),
      day({ providerName: 'aws', region: null, period: '202401', day: '2024-01-02' }, 2, 1),
      day({ providerName: 'aws', period: '202401', day: '2024-01-02' }, 4, 3),
      day({ providerName: 'aws', region: null, period: '202402', day: '2024-01-31' }, 8, 1),
    ]);
    expect(months.map((group) => monthlyRollupRow('u1', group))).toEqual([
      {
        uploadRefId: 'u1',
        lineItems: 3,
        providerName: 'aws',
        region: null,
        period: '202401',
        cost: 3.5,
        billedCost: 7,
        effectiveCost: 0,
        listCost: 0,
        contractedCost: 0,
      },
      {
        uploadRefId: 'u1',
        lineItems: 3,
        providerName: 'aws',
        period: '202401',
        cost: 4,
        billedCost: 8,
        effectiveCost: 0,
        listCost: 0,
        contractedCost: 0,
      },
      {
        uploadRefId: 'u1',
        lineItems: 1,
        providerName: 'aws',
        region: null,
        period: '202402',
        cost: 8,
        billedCost: 16,
        effectiveCost: 0,
        listCost: 0,
        contractedCost: 0,
      },
    ]);
  });
});

describe('summaryGroups', () => {
  it('sums monthly groups by the summary dimensions only, a missing one apart from a null one', () => {
    const month = (id: Record<string, string | null>, cost: number, lineItems: number) => ({ _id: id, cost, lineItems }) as never;
    const summary = summaryGroups([
      month({ providerName: 'aws', billingAccountId: 'a1', region: 'eu', serviceCategory: null, period: '202401' }, 1.5, 2),
      month({ providerName: 'aws', billingAccountId: 'a2', region: 'us', serviceCategory: null, period: '202401' }, 2, 1),
      month({ providerName: 'aws', billingAccountId: 'a2', period: '202401' }, 4, 3),
    ]);
    expect(summary.map((group) => [group._id, group.cost, group.lineItems])).toEqual([
      [{ providerName: 'aws', serviceCategory: null, period: '202401' }, 3.5, 3],
      [{ providerName: 'aws', period: '202401' }, 4, 3],
    ]);
  });
});
