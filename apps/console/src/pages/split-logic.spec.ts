import { describe, expect, it } from '@jest/globals';
import { problemOf } from '../api/problem';
import type { ShowbackSplit } from '../api/types';
import {
  flowLayout,
  newSplitTarget,
  percentSum,
  showbackTotals,
  splitDraftOf,
  splitDraftProblem,
  splitProblemsOf,
  splitRulesRequest,
} from './split-logic';

const rule = {
  name: 'Shared platform',
  source: "dimension('team') == 'shared'",
  target: 'dimension:team',
  method: 'fixed' as const,
  targets: [
    { value: 'alpha', percent: 70 },
    { value: 'beta', percent: 30 },
  ],
};

describe('split rule drafts', () => {
  it('drafts a saved rule (percentages as text) and a new one towards a target', () => {
    const draft = splitDraftOf(rule);
    expect(draft).toMatchObject({ name: rule.name, method: 'fixed', targets: [{ value: 'alpha', percent: '70' }, { value: 'beta' }] });
    expect(splitDraftOf(undefined, 'dimension:team')).toMatchObject({
      name: '',
      source: '',
      target: 'dimension:team',
      method: 'proportional',
      targets: [{ value: '', percent: '' }],
    });
  });

  it('sends percentages for the fixed method only, values trimmed', () => {
    const draft = splitDraftOf(rule);
    expect(splitRulesRequest([draft])).toEqual([rule]);
    const proportional = { ...draft, name: ' P ', method: 'proportional' as const, targets: [newSplitTarget(' alpha ', '12')] };
    expect(splitRulesRequest([proportional])).toEqual([{ ...rule, name: 'P', method: 'proportional', targets: [{ value: 'alpha' }] }]);
  });

  it('sums percentages without float noise', () => {
    expect(percentSum([{ percent: '33.3' }, { percent: '33.3' }, { percent: '33.4' }])).toBe(100);
    expect(percentSum([{ percent: '50' }, { percent: 'x' }, { percent: '' }])).toBe(50);
  });

  it('says what the editor refuses before sending, on the rule and field', () => {
    const ok = splitDraftOf(rule);
    expect(splitDraftProblem([ok])).toBeUndefined();
    expect(splitDraftProblem([ok, { ...ok, id: 99 }])).toMatchObject({ rule: 1, field: 'name' });
    expect(splitDraftProblem([{ ...ok, source: ' ' }])).toMatchObject({ rule: 0, field: 'source' });
    expect(splitDraftProblem([{ ...ok, target: '' }])).toMatchObject({ rule: 0, field: 'target' });
    expect(splitDraftProblem([{ ...ok, targets: [] }])).toMatchObject({ rule: 0, field: 'targets' });
    expect(splitDraftProblem([{ ...ok, targets: [newSplitTarget('a', '50'), newSplitTarget('', '50')] }])).toMatchObject({
      field: 'targets',
      target: 1,
    });
    expect(splitDraftProblem([{ ...ok, targets: [newSplitTarget('a', '50'), newSplitTarget('a', '50')] }])).toMatchObject({ target: 1 });
    expect(splitDraftProblem([{ ...ok, targets: [newSplitTarget('a', '60'), newSplitTarget('b', '30')] }])).toEqual({
      rule: 0,
      field: 'targets',
      message: 'The percentages sum to 90%, not 100%.',
    });
    expect(splitDraftProblem([{ ...ok, targets: [newSplitTarget('a', ''), newSplitTarget('b', '100')] }])).toMatchObject({ target: 0 });
    // percentages do not matter to the other methods
    expect(splitDraftProblem([{ ...ok, method: 'even', targets: [newSplitTarget('a', '')] }])).toBeUndefined();
  });

  it('places the API problems on the rule and field they name', () => {
    const drafts = [{ name: 'One' }, { name: 'Two' }];
    const invalid = problemOf(400, {
      code: 'INVALID_SPLIT_RULE',
      detail: 'splits.1.source: a source may read rolled-up fields, activated tag keys and dimensions only',
      errors: [{ field: 'splits.1.source', messages: ['a source may read rolled-up fields, activated tag keys and dimensions only'] }],
    });
    expect(splitProblemsOf(invalid, drafts)).toEqual({
      placed: [{ rule: 1, field: 'source', target: undefined, message: invalid.extra.errors![0].messages[0] }],
    });
    const validation = problemOf(400, {
      code: 'VALIDATION_FAILED',
      detail: 'The request is invalid',
      errors: [{ field: 'rules.0.targets.2.percent', messages: ['percent must not be greater than 100'] }],
    });
    expect(splitProblemsOf(validation, drafts).placed).toEqual([
      { rule: 0, field: 'targets', target: 2, message: 'percent must not be greater than 100' },
    ]);
    const cycle = problemOf(400, {
      code: 'SPLIT_RULE_CYCLE',
      detail: "split 'Two' would take back what 'One' gives to alpha: order the splits so that cost only flows forward",
    });
    expect(splitProblemsOf(cycle, drafts).placed.map((problem) => problem.rule)).toEqual([0, 1]);
    const other = problemOf(403, { code: 'SYSTEM_ADMIN_REQUIRED', detail: 'no' });
    expect(splitProblemsOf(other, drafts)).toEqual({ placed: [], unplaced: other });
    expect(splitProblemsOf(undefined, drafts)).toEqual({ placed: [] });
  });
});

describe('showback', () => {
  it('totals the lines', () => {
    expect(
      showbackTotals([
        { value: 'a', unallocated: false, direct: 10, shared: 2, received: [], total: 12 },
        { value: null, unallocated: true, direct: 5, shared: 0, received: [], total: 5 },
      ]),
    ).toEqual({ direct: 15, shared: 2, total: 17 });
  });

  it('lays the flow out: bands as wide as their amounts, stacked on each side', () => {
    const splits: ShowbackSplit[] = [
      {
        name: 'Shared',
        source: 7.5,
        shares: [
          { value: 'alpha', amount: 5 },
          { value: 'beta', amount: 2.5 },
        ],
      },
      { name: 'Support', source: 2.5, shares: [{ value: 'alpha', amount: 2.5 }] },
    ];
    const layout = flowLayout(splits);
    expect(layout.sources.map((node) => [node.key, node.amount])).toEqual([
      ['Shared', 7.5],
      ['Support', 2.5],
    ]);
    expect(layout.targets.map((node) => [node.key, node.amount])).toEqual([
      ['alpha', 7.5],
      ['beta', 2.5],
    ]);
    const [first, second, third] = layout.bands;
    expect(first.thickness / second.thickness).toBeCloseTo(2, 9);
    expect(first.thickness + second.thickness + third.thickness).toBeCloseTo(220, 9);
    // the second rule's band lands under the first one's on alpha
    expect(layout.targets[0].height).toBeCloseTo(first.thickness + third.thickness, 9);
    expect(layout.bands.map((band) => [band.rule, band.value])).toEqual([
      ['Shared', 'alpha'],
      ['Shared', 'beta'],
      ['Support', 'alpha'],
    ]);
    expect(layout.height).toBeGreaterThan(layout.sources[1].labelY);
    // a rule that took nothing still has its box, and a band is at least a hairline
    const empty = flowLayout([{ name: 'None', source: 0, shares: [{ value: 'a', amount: 0 }] }]);
    expect(empty.bands[0].thickness).toBe(1);
  });
});
