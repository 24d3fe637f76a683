import fc from 'fast-check';
import { PermanentJobError } from '../../jobs/job-handler';
import {
  BottomK,
  estimateOverlap,
  overlappingParts,
  PART_OVERLAP_THRESHOLD,
  PART_SKETCH_SIZE,
  PartSketches,
  partsOverlapRefusal,
  rowFingerprint,
  rowLayout,
} from './part-overlap';

const HEADER = ['BillingAccountId', 'ChargePeriodStart', 'BilledCost', 'ServiceName', 'Id', 'x_Note'];
const LAYOUT = rowLayout(HEADER);

/** Row `index` of a made-up export: distinct indexes give distinct rows; `restated` changes its cost. */
const rowOf = (index: number, restated = false): string[] => [
  'acc-1',
  `2024-09-${String((index % 28) + 1).padStart(2, '0')} ${String(index % 24).padStart(2, '0')}:00:00`,
  `${(index * 7919) % 100_000}.${index % 100}${restated ? '1' : ''}`,
  ['EC2', 'S3', 'Lambda'][index % 3],
  `row-${index}`,
  index % 5 === 0 ? '' : `note ${index}`,
];

/** The sketch of a part holding those rows (one scope), as the import builds it. */
function sketchOf(indexes: Iterable<number>, restated: (index: number) => boolean = () => false): BottomK {
  const sketches = new PartSketches('part.csv', HEADER);
  for (const index of indexes) sketches.add(rowOf(index, restated(index)), 'AWS', 'acc-1', '202409');
  return [...sketches.scopes.values()][0]?.sketch ?? new BottomK();
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_unused, at) => from + at);

/** A part of `rows` row indexes in one scope. */
function part(name: string, rows: Iterable<number>, scope = { providerName: 'AWS', billingAccountId: 'acc-1', billingPeriod: '202409' }) {
  const sketches = new PartSketches(name, HEADER);
  for (const index of rows) sketches.add(rowOf(index), scope.providerName, scope.billingAccountId, scope.billingPeriod);
  return sketches;
}

describe('part overlap', () => {
  describe('rowFingerprint', () => {
    it('is a safe integer, the same for the same row and different for rows that differ in any cell', () => {
      const row = rowOf(1);
      const fingerprint = rowFingerprint(row, LAYOUT);
      expect(Number.isSafeInteger(fingerprint)).toBe(true);
      expect(rowFingerprint([...row], LAYOUT)).toBe(fingerprint);
      for (let column = 0; column < row.length; column++) {
        const changed = [...row];
        changed[column] = `${changed[column]}x`;
        expect(rowFingerprint(changed, LAYOUT)).not.toBe(fingerprint);
      }
      // the cells' boundaries count: `ab` + `c` is not `a` + `bc`
      expect(rowFingerprint(['ab', 'c'], rowLayout(['x_A', 'x_B']))).not.toBe(rowFingerprint(['a', 'bc'], rowLayout(['x_A', 'x_B'])));
    });

    it('reads cells as the import does: null cells alike, blanks around text ignored, columns in any order', () => {
      const layout = rowLayout(['x_A', 'x_B', 'x_C']);
      const nulls = rowFingerprint(['', 'NULL', undefined], layout);
      expect(rowFingerprint([null, '  ', 'null'], layout)).toBe(nulls);
      expect(rowFingerprint(['a', ' b ', 'c'], layout)).toBe(rowFingerprint(['a', 'b', 'c'], layout));
      expect(rowFingerprint(['a', 'b', 'c'], layout)).toBe(rowFingerprint(['c', 'a', 'b'], rowLayout(['x_C', 'x_A', 'x_B'])));
      expect(rowFingerprint(['a', '', 'c'], layout)).not.toBe(rowFingerprint(['a', 'c', ''], layout));
    });

    it('gives a CSV row and the Parquet row of the same values (typed amounts and datetimes) the same fingerprint', () => {
      const header = ['ChargePeriodStart', 'ChargePeriodEnd', 'BillingPeriodStart', 'BilledCost', 'EffectiveCost', 'Tags', 'ServiceName'];
      const layout = rowLayout(header);
      const csv = ['2024-09-18 22:00:00', '2024-09-18T23:00:00', '2024-09-01', '1.50', '0.0000008', '{"a":"b"}', 'EC2'];
      const csvZ = ['2024-09-18T22:00:00Z', '2024-09-18T23:00:00Z', '2024-09-01T00:00:00Z', '1.5', '8e-7', '{"a":"b"}', ' EC2'];
      const parquet = [
        new Date(Date.UTC(2024, 8, 18, 22)),
        new Date(Date.UTC(2024, 8, 18, 23)),
        new Date(Date.UTC(2024, 8, 1)),
        1.5,
        8e-7,
        '{"a":"b"}',
        'EC2',
      ];
      expect(rowFingerprint(csvZ, layout)).toBe(rowFingerprint(csv, layout));
      expect(rowFingerprint(parquet, layout)).toBe(rowFingerprint(csv, layout));
      expect(rowFingerprint([...parquet.slice(0, 3), 1.51, ...parquet.slice(4)], layout)).not.toBe(rowFingerprint(csv, layout));
    });
    it('reads a datetime as the row reader does, every day of four centuries, and an amount as Number does', () => {
      const layout = rowLayout(['ChargePeriodStart']);
      const amounts = rowLayout(['BilledCost']);
      fc.assert(
        fc.property(
          fc.date({ min: new Date(Date.UTC(1900, 0, 1)), max: new Date(Date.UTC(2300, 0, 1)), noInvalidDate: true }),
          fc.double({ noNaN: true, noDefaultInfinity: true }),
          (date, amount) => {
            const at = new Date(Math.floor(date.getTime() / 1000) * 1000);
            const text = at.toISOString().slice(0, 19).replace('T', ' ');
            expect(rowFingerprint([text], layout)).toBe(rowFingerprint([at], layout));
            expect(rowFingerprint([String(amount)], amounts)).toBe(rowFingerprint([amount], amounts));
            expect(rowFingerprint([amount.toFixed(6)], amounts)).toBe(rowFingerprint([Number(amount.toFixed(6))], amounts));
          },
        ),
        { numRuns: 300 },
      );
    });
  });

  describe('BottomK', () => {
    it('keeps the k smallest distinct fingerprints, ascending, ordered by key then hash', () => {
      const sketch = new BottomK(4);
      for (const value of [50, 10, 40, 10, 30, 20, 60, 5]) sketch.add(value);
      expect([...sketch.keys]).toEqual([5, 10, 20, 30]);
      expect(sketch.complete).toBe(false);
      expect(sketch.ceiling).toBe(30);
      expect(sketch.has(20)).toBe(true);
      expect(sketch.has(40)).toBe(false);
      // the same key: the whole-row hash decides, and tells the rows apart
      sketch.add(20, 7);
      expect([...sketch.keys]).toEqual([5, 10, 20, 20]);
      expect([...sketch.hashes]).toEqual([0, 0, 0, 7]);
      expect(sketch.has(20, 7)).toBe(true);
      expect(sketch.covers(20, 8)).toBe(false);
    });

    it('is the set itself, exactly, while it holds fewer than k distinct rows', () => {
      const sketch = sketchOf([...range(0, 100), ...range(0, 100)]);
      expect(sketch).toMatchObject({ size: 100, rows: 200, complete: true });
      expect(sketch.distinct()).toBe(100);
    });

    it('estimates the distinct rows of a large set within 25%', () => {
      const sketch = sketchOf(range(0, 20_000));
      expect(sketch.size).toBe(PART_SKETCH_SIZE);
      expect(Math.abs(sketch.distinct() / 20_000 - 1)).toBeLessThan(0.25);
    });
  });

  describe('estimateOverlap (properties)', () => {
    /** A start, a size and a seed-like offset that keep row sets apart from one run to the next. */
    const size = fc.integer({ min: 1, max: 3_000 });
    const offset = fc.integer({ min: 0, max: 1_000_000 });

    it('finds nothing shared between disjoint row sets', () => {
      fc.assert(
        fc.property(size, size, offset, (a, b, from) => {
          const estimate = estimateOverlap(sketchOf(range(from, from + a)), sketchOf(range(from + a, from + a + b)));
          expect(estimate).toEqual({ jaccard: 0, containment: 0 });
        }),
        { numRuns: 40 },
      );
    });

    it('finds a set and its copy (rows in another order, rows repeated) the same rows', () => {
      fc.assert(
        fc.property(size, offset, (a, from) => {
          const rows = range(from, from + a);
          const estimate = estimateOverlap(sketchOf(rows), sketchOf([...rows.reverse(), ...rows.slice(0, 10)]));
          expect(estimate).toEqual({ jaccard: 1, containment: 1 });
        }),
        { numRuns: 40 },
      );
    });

    it('detects a later snapshot that restates a tenth of the rows and adds new ones', () => {
      fc.assert(
        fc.property(fc.integer({ min: 50, max: 5_000 }), fc.double({ min: 0, max: 0.5, noNaN: true }), offset, (a, added, from) => {
          const first = sketchOf(range(from, from + a));
          // the same rows, one in ten with another cost, and `added` more rows of the period
          const later = sketchOf(range(from, from + a + Math.round(a * added)), (index) => index % 10 === 3);
          const { containment } = estimateOverlap(first, later);
          expect(containment).toBeGreaterThanOrEqual(PART_OVERLAP_THRESHOLD);
          expect(containment).toBeGreaterThan(0.7);
        }),
        { numRuns: 40 },
      );
    });

    it('estimates the shared share of the smaller set and the Jaccard similarity within 0.2', () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 300, max: 6_000 }),
          fc.integer({ min: 300, max: 6_000 }),
          fc.double({ min: 0, max: 1, noNaN: true }),
          offset,
          (a, b, share, from) => {
            const small = Math.min(a, b);
            const shared = Math.round(small * share);
            // A = [from, from + a), B = [from + a - shared, from + a - shared + b): `shared` rows in common
            const setA = range(from, from + a);
            const setB = range(from + a - shared, from + a - shared + b);
            const { jaccard, containment } = estimateOverlap(sketchOf(setA), sketchOf(setB));
            expect(Math.abs(containment - shared / small)).toBeLessThanOrEqual(0.2);
            expect(Math.abs(jaccard - shared / (a + b - shared))).toBeLessThanOrEqual(0.2);
          },
        ),
        { numRuns: 40 },
      );
    });
  });

  describe('overlappingParts', () => {
    it('names two parts of the same rows in a scope, the share, and no pair for parts split from one export', () => {
      const rows = range(0, 1_000);
      expect(overlappingParts([part('a.csv', rows), part('b.csv', rows)])).toEqual([
        expect.objectContaining({
          part: 'a.csv',
          other: 'b.csv',
          providerName: 'AWS',
          billingAccountId: 'acc-1',
          billingPeriod: '202409',
          share: 1,
          moreScopes: 0,
        }),
      ]);
      expect(overlappingParts([part('a.csv', range(0, 500)), part('b.csv', range(500, 1_000))])).toEqual([]);
    });

    it('compares parts within a scope only: the same rows under another billing account or period are not an overlap', () => {
      const rows = range(0, 300);
      const other = { providerName: 'AWS', billingAccountId: 'acc-2', billingPeriod: '202409' };
      expect(overlappingParts([part('a.csv', rows), part('b.csv', rows, other)])).toEqual([]);
    });

    it('names the smaller part as the one whose rows are in the other, and every overlapping pair', () => {
      const found = overlappingParts([
        part('big.csv', range(0, 2_000)),
        part('other.csv', range(5_000, 6_000)),
        part('small.csv', range(0, 400)),
      ]);
      expect(found.map(({ part: name, other }) => [name, other])).toEqual([['small.csv', 'big.csv']]);
      expect(found[0].share).toBeGreaterThan(0.9);
    });
  });

  it('gives the same answers from sketches handed over by part jobs (JSON and back) as from the sketches themselves', () => {
    const parts = [part('big.csv', range(0, 2_000)), part('other.csv', range(5_000, 6_000)), part('small.csv', range(0, 100))];
    const handed = parts.map((sketches) => PartSketches.fromHandoff(JSON.parse(JSON.stringify(sketches.toHandoff()))));
    expect(overlappingParts(handed)).toEqual(overlappingParts(parts));
    expect(overlappingParts(handed)).toHaveLength(1);
    const [big, , small] = handed.map((sketches) => [...sketches.scopes.values()][0].sketch);
    expect([big.rows, big.complete, small.rows, small.complete]).toEqual([2_000, false, 100, true]);
  });

  it('refuses the upload with one error per overlapping pair, naming both parts, the scope and the share', () => {
    const refusal = partsOverlapRefusal(overlappingParts([part('a.csv', range(0, 300)), part('b.csv', range(0, 300))]), { rowsRead: 600 });
    expect(refusal).toBeInstanceOf(PermanentJobError);
    expect(refusal.message).toBe(
      'FOCUS_PARTS_OVERLAP: 1 pair(s) of parts hold the same rows (a.csv and b.csv), ' +
        'e.g. for billing account acc-1, billing period 202409; nothing was kept',
    );
    expect(refusal.details).toEqual({
      rowsRead: 600,
      errors: [
        {
          file: 'a.csv',
          line: 0,
          reason:
            'holds the same rows as b.csv for billing account acc-1, billing period 202409 (about 100% of its rows): ' +
            'two snapshots of one period in one upload would count its cost twice; ' +
            'import them as separate uploads (the newer replaces the older) or drop one',
        },
      ],
    });
  });
});
