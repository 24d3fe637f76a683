import fc from 'fast-check';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { RollupAccumulator } from './rollup-accumulator';
import { monthlyRollupRow, rollupRow } from './rollup-fields';
import { RESOURCE_DIMENSIONS } from './schemas/cost-rollup.schema';

describe('RollupAccumulator', () => {
  it('keeps no chunk of text alive through the strings its groups keep (a CSV reader’s cells are slices of its chunks)', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const heapMb = () => {
      gc();
      return process.memoryUsage().heapUsed / 1e6;
    };
    const sums = new RollupAccumulator(undefined, 1_000);
    const before = heapMb();
    for (let chunk = 0; chunk < 100; chunk++) {
      // 1 MB of text a chunk, cells of 13 characters or more (V8 slices those, copies shorter ones); one line item a chunk
      const cells = [
        `amazon-web-services-${chunk}`,
        `eu-west-region-${chunk}`,
        `resource-0000-0000-${chunk}`,
        'environment',
        `production-${chunk}`,
      ];
      const text = `${'x'.repeat(1_000_000)},${cells.join(',')}`;
      const [, provider, region, resourceId, key, value] = text.split(',');
      const tags = [{ group: 'default', key, value }];
      sums.add([
        {
          providerName: provider,
          region,
          resourceId,
          tags,
          period: '202403',
          chargePeriodStart: new Date(Date.UTC(2024, 2, 1 + (chunk % 28))),
          cost: 1,
        },
      ]);
    }
    expect(sums.rows()).toHaveLength(100);
    expect(sums.resourceRows()).toHaveLength(100);
    // with the slices kept, about 100 MB
    expect(heapMb() - before).toBeLessThan(20);
  });

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

  it('sums the rows by resource as the database groups them: by every monthly dimension, the resource id and the tags as stored', () => {
    const TAGS: Record<string, unknown> = {
      a: [{ group: 'user', key: 'env', value: 'a' }],
      b: [{ group: 'user', key: 'env', value: 'b' }],
      other: [{ group: 'aws', key: 'env', value: 'a' }],
      two: [
        { group: 'user', key: 'env', value: 'a' },
        { group: 'user', key: 'team', value: 'x' },
      ],
      empty: [],
      null: null,
      undefined: undefined,
    };
    const item = fc.record({
      region: fc.constantFrom('eu-west-1', undefined, null),
      resourceId: fc.constantFrom('i-1', 'i-2', undefined),
      // absent, null, undefined (stored as null) or lists that differ in one value, group or entry
      tags: fc.constantFrom('absent', ...Object.keys(TAGS)),
      cost: fc.integer({ min: -5, max: 50 }),
    });
    fc.assert(
      fc.property(fc.array(item, { minLength: 1, maxLength: 60 }), (specs) => {
        const docs = specs.map(({ tags, region, resourceId, cost }) => {
          const doc: Record<string, unknown> = { providerName: 'aws', cost, period: '202401', chargePeriodStart: new Date('2024-01-02Z') };
          if (region !== undefined) doc.region = region;
          if (resourceId !== undefined) doc.resourceId = resourceId;
          if (tags !== 'absent')
            doc.tags = Array.isArray(TAGS[tags]) ? (TAGS[tags] as object[]).map((entry) => ({ ...entry })) : TAGS[tags];
          return doc;
        });
        const sums = new RollupAccumulator();
        for (let start = 0; start < docs.length; start += 7) sums.add(docs.slice(start, start + 7));
        // the reference: what `$group` by RESOURCE_DIMENSIONS and tags gives (undefined stored as null, absent left out)
        const expected = new Map<string, { row: Record<string, unknown>; cost: number; lineItems: number }>();
        for (const doc of docs) {
          const id: Record<string, unknown> = {};
          for (const name of [...RESOURCE_DIMENSIONS, 'tags']) if (name in doc) id[name] = doc[name] ?? null;
          const key = JSON.stringify(id);
          // a stored row keeps no null tags (monthlyRollupRow): classified alike as no tags
          const row = { ...id };
          if (row.tags === null) delete row.tags;
          const entry = expected.get(key) ?? { row, cost: 0, lineItems: 0 };
          entry.cost += doc.cost as number;
          entry.lineItems += 1;
          expected.set(key, entry);
        }
        const actual = sums.resourceRows()!.map((group) => monthlyRollupRow('u', group) as unknown as Record<string, unknown>);
        const comparable = (row: Record<string, unknown>) => {
          const id: Record<string, unknown> = {};
          for (const name of [...RESOURCE_DIMENSIONS, 'tags']) if (name in row) id[name] = row[name];
          return JSON.stringify([id, row.cost, row.lineItems]);
        };
        expect(actual.map(comparable).sort()).toEqual(
          [...expected.values()].map(({ row, cost, lineItems }) => JSON.stringify([row, cost, lineItems])).sort(),
        );
      }),
      { numRuns: 300 },
    );
  });

  it('stops summing rows by resource past its bound, and says so (the database sums them then), the other rows summed as before', () => {
    const sums = new RollupAccumulator(undefined, 2);
    const doc = (resourceId: string) => ({
      providerName: 'aws',
      period: '202401',
      resourceId,
      cost: 1,
      chargePeriodStart: new Date('2024-01-02Z'),
    });
    sums.add([doc('a'), doc('b'), doc('a')]);
    expect(sums.resourceRows()).toHaveLength(2);
    sums.add([doc('c'), doc('a')]);
    expect(sums.resourceRows()).toBeUndefined();
    expect(sums.rows()).toEqual([expect.objectContaining({ lineItems: 5, cost: 5 })]);
  });
});
