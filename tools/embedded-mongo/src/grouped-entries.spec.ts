import fc from 'fast-check';
import { GroupedCursor, GroupedEntries } from './grouped-entries';
import { encodeValue } from './key-encoding';

/** Prefixes are encodings of index values, `_id` keys encodings of `_id`s: both prefix-free, as in an index. */
const prefixOf = (values: unknown[]): string => values.map((value) => encodeValue(value)).join('');
const idKeyOf = (id: number): string => encodeValue(id);

const entryArbitrary = fc.record({
  values: fc.tuple(fc.constantFrom('a', 'ab', 'b', ''), fc.integer({ min: 0, max: 3 })),
  id: fc.integer({ min: 0, max: 40 }),
});
const boundArbitrary = fc.oneof(
  fc
    .record({
      values: fc.tuple(fc.constantFrom('a', 'ab', 'b', ''), fc.integer({ min: 0, max: 3 })),
      id: fc.option(fc.integer({ min: 0, max: 40 })),
    })
    .map(({ values, id }) => prefixOf(values) + (id === null ? '' : idKeyOf(id))),
  fc
    .record({ values: fc.tuple(fc.constantFrom('a', 'b'), fc.integer({ min: 0, max: 3 })), id: fc.integer({ min: 0, max: 40 }) })
    .map(({ values, id }) => prefixOf(values) + idKeyOf(id) + idKeyOf(id)),
  fc.constantFrom('', '\u0100'),
  fc.constantFrom('a', 'ab', 'b', '').map((first) => encodeValue(first)),
);

/** `doubled`: an index ending with `_id`, whose whole keys hold the `_id` key twice (see compareDoubledIds). */
function build(
  entries: Array<{ values: unknown[]; id: number }>,
  removed: number[] = [],
  doubled = false,
): { grouped: GroupedEntries; whole: Map<string, string> } {
  // Chunks of 2 ids: inserts out of order split them, removals empty them.
  const grouped = new GroupedEntries(2, doubled);
  const whole = new Map<string, string>();
  const wholeKey = (values: unknown[], id: number): string => prefixOf(values) + (doubled ? idKeyOf(id) : '') + idKeyOf(id);
  for (const { values, id } of entries) {
    grouped.add(prefixOf(values), idKeyOf(id));
    whole.set(wholeKey(values, id), idKeyOf(id));
  }
  for (const i of removed) {
    const entry = entries[i % Math.max(1, entries.length)];
    if (!entry) continue;
    grouped.delete(prefixOf(entry.values), idKeyOf(entry.id));
    whole.delete(wholeKey(entry.values, entry.id));
  }
  return { grouped, whole };
}

function walk(
  owner: { version: number; grouped: GroupedEntries },
  ranges: Array<{ start: string; end: string }>,
  direction: 1 | -1,
  change?: () => void,
): string[] {
  const stats = { keysExamined: 0, seeks: 0 };
  const cursor = new GroupedCursor(owner, ranges, direction, stats);
  const out: string[] = [];
  for (let idKey = cursor.next(); idKey !== undefined; idKey = cursor.next()) {
    out.push(idKey);
    if (out.length === 2 && change) change();
  }
  expect(stats.keysExamined).toBe(out.length);
  return out;
}

describe('GroupedEntries', () => {
  it.each([
    ['', false],
    [' (an index ending with _id)', true],
  ])('walks key ranges both ways exactly as a sorted list of whole keys would, after inserts in any order and removals%s', (_, doubled) => {
    fc.assert(
      fc.property(
        fc.array(entryArbitrary, { maxLength: 60 }),
        fc.array(fc.nat(), { maxLength: 20 }),
        fc.array(fc.tuple(boundArbitrary, boundArbitrary), { minLength: 1, maxLength: 3 }),
        (entries, removed, bounds) => {
          const { grouped, whole } = build(entries, removed, doubled);
          const keys = [...whole.keys()].sort();
          const ranges = bounds
            .map(([a, b]) => (a <= b ? { start: a, end: b } : { start: b, end: a }))
            .sort((x, y) => (x.start < y.start ? -1 : 1))
            .filter((range, i, all) => i === 0 || range.start >= all[i - 1].end);
          const expected = ranges.flatMap((range) =>
            keys.filter((key) => key >= range.start && key < range.end).map((key) => whole.get(key) as string),
          );
          const owner = { version: 0, grouped };
          expect(walk(owner, ranges, 1)).toEqual(expected);
          expect(walk(owner, ranges, -1)).toEqual([...expected].reverse());
          expect(grouped.size).toBe(whole.size);
        },
      ),
    );
  });

  it.each([
    ['', false],
    [' (an index ending with _id)', true],
  ])('goes on just past the last entry returned when entries change during a walk%s', (_, doubled) => {
    fc.assert(
      fc.property(
        fc.array(entryArbitrary, { minLength: 3, maxLength: 40 }),
        fc.array(entryArbitrary, { maxLength: 10 }),
        fc.boolean(),
        (entries, added, forward) => {
          const { grouped, whole } = build(entries, [], doubled);
          const owner = { version: 0, grouped };
          const ordered = (): string[] => (forward ? [...whole.keys()].sort() : [...whole.keys()].sort().reverse());
          const before = ordered();
          const seen = walk(owner, [{ start: '', end: '\u0100' }], forward ? 1 : -1, () => {
            for (const { values, id } of added) {
              grouped.add(prefixOf(values), idKeyOf(id));
              whole.set(prefixOf(values) + (doubled ? idKeyOf(id) : '') + idKeyOf(id), idKeyOf(id));
            }
            owner.version++;
          });
          // The first two entries as they were, then every entry of the changed index beyond the second.
          const beyond = ordered().filter((key) => (forward ? key > before[1] : key < before[1]));
          expect(seen).toEqual([...before.slice(0, 2), ...beyond].map((key) => whole.get(key)));
        },
      ),
    );
  });

  it('removes entries and loads sorted entries in bulk', () => {
    const grouped = new GroupedEntries(2);
    grouped.load([prefixOf(['a', 1]), prefixOf(['a', 1]), prefixOf(['b', 0])], [idKeyOf(1), idKeyOf(2), idKeyOf(3)]);
    expect(grouped.size).toBe(3);
    grouped.delete(prefixOf(['a', 1]), idKeyOf(1));
    grouped.delete(prefixOf(['a', 1]), idKeyOf(9));
    grouped.add(prefixOf(['a', 1]), idKeyOf(2));
    expect(grouped.size).toBe(2);
    expect(walk({ version: 0, grouped }, [{ start: '', end: '\u0100' }], 1)).toEqual([idKeyOf(2), idKeyOf(3)]);
  });

  it('keeps the id of a prefix held by one document, makes a group of it at the second and drops the prefix with the last', () => {
    const grouped = new GroupedEntries(2);
    const all = (): string[] => walk({ version: 0, grouped }, [{ start: '', end: '\u0100' }], 1);
    const prefix = prefixOf(['a', 1]);
    grouped.add(prefix, idKeyOf(5));
    grouped.add(prefix, idKeyOf(5));
    grouped.delete(prefix, idKeyOf(6));
    expect(grouped.size).toBe(1);
    grouped.add(prefix, idKeyOf(3));
    grouped.add(prefix, idKeyOf(3));
    expect(grouped.size).toBe(2);
    expect(all()).toEqual([idKeyOf(3), idKeyOf(5)]);
    grouped.delete(prefix, idKeyOf(5));
    grouped.delete(prefix, idKeyOf(3));
    expect(grouped.size).toBe(0);
    expect(all()).toEqual([]);
    grouped.add(prefix, idKeyOf(7));
    expect(all()).toEqual([idKeyOf(7)]);
  });
});
