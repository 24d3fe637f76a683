import { describe, expect, it } from '@jest/globals';
import { problemOf } from '../api/problem';
import type { DimensionPreview } from '../api/types';
import {
  draftOf,
  groupingChoices,
  incompleteRules,
  moveRule,
  nameProblem,
  newRule,
  previewRequest,
  ruleProblemOf,
  ruleShares,
  saveRequest,
  tagKeyRows,
} from './allocation-logic';

const active = (group: string | null, key: string) => ({ group, key, activatedAt: '2026-01-01T00:00:00Z', activatedBy: 'admin' });
const observed = (group: string, key: string, coverage: number, isActive = false) => ({
  group,
  key,
  coverage,
  cost: coverage * 100,
  lineItems: 1,
  active: isActive,
});

describe('dimension drafts', () => {
  it('checks the name as the API does', () => {
    expect(nameProblem('environment')).toBeUndefined();
    expect(nameProblem('cost-center_2')).toBeUndefined();
    expect(nameProblem('')).toBe('A name is required.');
    expect(nameProblem('Environment')).toMatch(/lower-case/);
    expect(nameProblem('-env')).toMatch(/lower-case/);
    expect(nameProblem('a'.repeat(64))).toMatch(/lower-case/);
  });

  it('starts a new dimension with one empty rule, an existing one from its rules and version', () => {
    expect(draftOf()).toMatchObject({ name: '', description: '', defaultValue: 'unallocated', rules: [{ expr: '', value: '' }] });
    const draft = draftOf({ name: 'env', rules: [{ expr: 'a', value: 'x' }], defaultValue: 'none', version: 4 });
    expect(draft).toMatchObject({ name: 'env', description: '', defaultValue: 'none', version: 4, rules: [{ expr: 'a', value: 'x' }] });
    expect(
      new Set(
        draftOf({
          name: 'n',
          rules: [
            { expr: 'a', value: 'x' },
            { expr: 'b', value: 'y' },
          ],
          defaultValue: 'u',
          version: 1,
        }).rules.map((rule) => rule.id),
      ).size,
    ).toBe(2);
  });

  it('moves a rule up and down within the list', () => {
    expect(moveRule(['a', 'b', 'c'], 2, -1)).toEqual(['a', 'c', 'b']);
    expect(moveRule(['a', 'b', 'c'], 0, 1)).toEqual(['b', 'a', 'c']);
    expect(moveRule(['a', 'b', 'c'], 0, -1)).toEqual(['a', 'b', 'c']);
    expect(moveRule(['a', 'b', 'c'], 2, 1)).toEqual(['a', 'b', 'c']);
  });

  it('previews the complete rules only, and knows which rule each answer is about', () => {
    const rules = [newRule('a == 1', 'x'), newRule('', 'y'), newRule('c == 3', ' z '), newRule('d == 4', '')];
    expect(incompleteRules(rules)).toEqual([1, 3]);
    const { body, sent } = previewRequest({ rules, defaultValue: ' ' }, { from: '202401' });
    expect(body).toEqual({
      rules: [
        { expr: 'a == 1', value: 'x' },
        { expr: 'c == 3', value: 'z' },
      ],
      defaultValue: 'unallocated',
      from: '202401',
    });
    expect(sent).toEqual([0, 2]);
    const preview = {
      rules: [
        { rule: 0, value: 'x', cost: 5, lineItems: 2 },
        { rule: 1, value: 'z', cost: 1, lineItems: 1 },
      ],
    } as DimensionPreview;
    const shares = ruleShares(preview, [rules[0].id, rules[2].id]);
    expect(shares.get(rules[2].id)).toEqual({ rule: 1, value: 'z', cost: 1, lineItems: 1 });
    expect(shares.get(rules[1].id)).toBeUndefined();
  });

  it('places an INVALID_EXPRESSION on the rule it names, with its position and message', () => {
    const problem = problemOf(400, {
      code: 'INVALID_EXPRESSION',
      detail: "rules[1].expr: expected '==' at position 21",
      rule: 1,
      position: 21,
      errors: [{ field: 'rules.1.expr', messages: ["expected '==' at position 21"] }],
    });
    expect(ruleProblemOf(problem, [7, 9])).toEqual({ rule: 9, position: 21, message: "expected '==' at position 21" });
    // a rule that reads a dimension: no position
    const reads = problemOf(400, { code: 'INVALID_EXPRESSION', detail: 'rules[0].expr: a rule cannot read a dimension', rule: 0 });
    expect(ruleProblemOf(reads, [3])).toEqual({ rule: 3, position: undefined, message: 'rules[0].expr: a rule cannot read a dimension' });
    expect(ruleProblemOf(problemOf(409, { code: 'DIMENSION_VERSION_CONFLICT', detail: 'x' }), [1])).toBeUndefined();
    expect(ruleProblemOf(problem, [7])).toBeUndefined();
    expect(ruleProblemOf(undefined, [1])).toBeUndefined();
  });

  it('creates with the name, updates with the version it started from', () => {
    const draft = { name: ' env ', description: ' ', rules: [newRule('a', ' x ')], defaultValue: '' };
    expect(saveRequest(draft)).toEqual({ create: { name: 'env', rules: [{ expr: 'a', value: 'x' }], defaultValue: 'unallocated' } });
    expect(saveRequest({ ...draft, description: 'Where', defaultValue: 'none', version: 2 })).toEqual({
      update: { description: 'Where', rules: [{ expr: 'a', value: 'x' }], defaultValue: 'none', version: 2 },
    });
  });
});

describe('tag keys', () => {
  it('marks the keys the settings activate (in their group or in every group) and lists activated keys not seen', () => {
    const rows = tagKeyRows(
      [observed('team', 'owner', 0.7, false), observed('default', 'env', 0.5, true), observed('ops', 'owner', 0.1)],
      [active('team', 'owner'), active(null, 'cost-center'), active('x', 'y')],
    );
    expect(rows.map((row) => [row.group, row.key, row.active, row.activation?.group, row.observed])).toEqual([
      ['team', 'owner', true, 'team', true],
      // the list said active, the (newer) settings no more
      ['default', 'env', false, undefined, true],
      ['ops', 'owner', false, undefined, true],
      [null, 'cost-center', true, null, false],
      ['x', 'y', true, 'x', false],
    ]);
    // a key activated in every group covers each group's key
    expect(tagKeyRows([observed('a', 'env', 1)], [active(null, 'env')])).toEqual([
      expect.objectContaining({ group: 'a', key: 'env', active: true, activation: active(null, 'env'), observed: true }),
    ]);
    // without settings, the list's own flag
    expect(tagKeyRows([observed('a', 'env', 1, true)], undefined)[0].active).toBe(true);
  });

  it('offers the explorer every dimension and every activated key of one group', () => {
    expect(groupingChoices(undefined)).toEqual([]);
    expect(groupingChoices({ dimensions: ['environment'], tagKeys: [active('team', 'owner'), active(null, 'env')] })).toEqual([
      ['dimension:environment', 'environment (dimension)'],
      ['tag:team:owner', 'team:owner (tag)'],
    ]);
  });
});
