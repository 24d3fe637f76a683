import fc from 'fast-check';
import { compileExpression } from '../expressions';
import { CompiledSplit, CostPiece, divide, feedbackOf, NANOS, runSplits, targetValue } from './split-engine';

const filter = (text: string) => compileExpression(text) as Record<string, unknown>;
const piece = (team: string, serviceName: string, amount: number): CostPiece => ({ doc: { serviceName, dimensions: { team } }, amount });
const nanos = (amount: number) => BigInt(Math.round(amount * NANOS));
const split = (name: string, source: string, method: CompiledSplit['method'], targets: CompiledSplit['targets']): CompiledSplit => ({
  name,
  source: filter(source),
  target: { dimension: 'team' },
  method,
  targets,
});

describe('divide', () => {
  it('parts add up to the total exactly, in proportion, largest remainders first', () => {
    expect(divide(100n, [1, 1, 1])).toEqual([34n, 33n, 33n]);
    expect(divide(-100n, [1, 1, 1])).toEqual([-34n, -33n, -33n]);
    expect(divide(10n, [0, 0])).toEqual([0n, 0n]);
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }),
        fc.array(fc.double({ min: 0, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 20 }),
        (total, weights) => {
          const parts = divide(total, weights);
          if (weights.every((weight) => weight === 0)) return parts.every((part) => part === 0n);
          return parts.reduce((a, b) => a + b, 0n) === total;
        },
      ),
    );
  });
});

describe('runSplits', () => {
  it('splits support by the targets own cost, matching a hand computation', () => {
    const direct = [piece('a', 'ec2', 300), piece('b', 'ec2', 100), piece('platform', 'support', 40), piece('unallocated', 'ec2', 5)];
    const { pieces, outcomes } = runSplits(direct, [
      split('support', "serviceName == 'support'", 'proportional', [{ value: 'a' }, { value: 'b' }]),
    ]);
    expect(outcomes).toEqual([
      {
        name: 'support',
        source: 40,
        shares: [
          { value: 'a', amount: 30 },
          { value: 'b', amount: 10 },
        ],
      },
    ]);
    const byTeam = (team: string) =>
      pieces.filter((one) => targetValue(one.doc, { dimension: 'team' }) === team).reduce((sum, one) => sum + one.amount, 0);
    expect([byTeam('a'), byTeam('b'), byTeam('platform'), byTeam('unallocated')]).toEqual([330, 110, 0, 5]);
    // the shares keep what their sources have in common
    expect(pieces.find((one) => one.sharedBy === 'support')!.doc).toEqual({ serviceName: 'support', dimensions: { team: 'a' }, tags: [] });
  });

  it('chains in the declared order: a later split takes what an earlier one gave', () => {
    const direct = [piece('a', 'ec2', 60), piece('b', 'ec2', 40), piece('shared', 'support', 10), piece('platform', 'eks', 20)];
    const { outcomes } = runSplits(direct, [
      split('support to platform', "serviceName == 'support'", 'fixed', [{ value: 'platform', percent: 100 }]),
      split('platform', "dimension('team') == 'platform'", 'even', [{ value: 'a' }, { value: 'b' }]),
    ]);
    expect(outcomes[1]).toEqual({
      name: 'platform',
      source: 30,
      shares: [
        { value: 'a', amount: 15 },
        { value: 'b', amount: 15 },
      ],
    });
  });

  it('gives every source its exact total, and keeps the period total, on random costs and splits', () => {
    const teams = ['a', 'b', 'c', 'shared', 'unallocated'];
    const pieces = fc.array(
      fc.record({
        team: fc.constantFrom(...teams),
        service: fc.constantFrom('ec2', 'support', 'net'),
        amount: fc.double({ min: -1e4, max: 1e6, noNaN: true }),
      }),
      { minLength: 1, maxLength: 40 },
    );
    const rule = fc.record({
      source: fc.constantFrom(
        "serviceName == 'support'",
        "dimension('team') == 'shared'",
        "serviceName == 'net' && dimension('team') != 'a'",
      ),
      method: fc.constantFrom('proportional' as const, 'even' as const, 'fixed' as const),
      targets: fc.uniqueArray(fc.constantFrom('a', 'b', 'c'), { minLength: 1, maxLength: 3 }),
    });
    fc.assert(
      fc.property(pieces, fc.array(rule, { maxLength: 3 }), (rows, rules) => {
        const direct = rows.map((row) => piece(row.team, row.service, row.amount));
        const splits = rules.map((one, index) =>
          split(
            `s${index}`,
            one.source,
            one.method,
            one.targets.map((value, position) => ({ value, percent: position === 0 ? 100 - 10 * (one.targets.length - 1) : 10 })),
          ),
        );
        const { pieces: after, outcomes } = runSplits(direct, splits);
        for (const outcome of outcomes) {
          if (outcome.shares.length === 0) continue;
          expect(outcome.shares.reduce((sum, share) => sum + nanos(share.amount), 0n)).toBe(nanos(outcome.source));
        }
        const before = direct.reduce((sum, one) => sum + one.amount, 0);
        const total = after.reduce((sum, one) => sum + one.amount, 0);
        expect(Math.abs(total - before)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(before)) + outcomes.length * 1e-9);
      }),
    );
  });
});

describe('feedbackOf', () => {
  it('refuses a split that takes back what it or a later split gives, and allows cost that flows forward', () => {
    const forward = [
      split('support', "serviceName == 'support'", 'even', [{ value: 'platform' }]),
      split('platform', "dimension('team') == 'platform'", 'even', [{ value: 'a' }]),
    ];
    expect(feedbackOf(forward)).toBeUndefined();
    expect(feedbackOf([forward[1], split('back', "dimension('team') == 'a'", 'even', [{ value: 'platform' }])])).toEqual({
      giver: 'back',
      taker: 'platform',
      value: 'platform',
    });
    expect(feedbackOf([split('self', "dimension('team') != 'x'", 'even', [{ value: 'a' }])])).toEqual({
      giver: 'self',
      taker: 'self',
      value: 'a',
    });
  });
});
