import { RecordStore } from './record-store';

const line = (n: number, padding = 200) => ({
  n,
  period: `2024${String((n % 12) + 1).padStart(2, '0')}`,
  note: String(n).padEnd(padding, 'x'),
});

describe('RecordStore', () => {
  it('keeps rows across updates, reuses deleted rows and gives back each current version', () => {
    const store = new RecordStore();
    const rows = Array.from({ length: 1000 }, (_, n) => store.add(line(n)));
    store.replace(rows[10], { n: 10, changed: true });
    store.delete(rows[20]);
    expect(store.get(rows[10])).toEqual({ n: 10, changed: true });
    expect(store.get(rows[999])).toEqual(line(999));
    expect(store.add(line(5000))).toBe(rows[20]);
  });

  it('frees emptied slabs and compacts mostly emptied ones, records staying readable', () => {
    const store = new RecordStore();
    const rows = Array.from({ length: 20_000 }, (_, n) => store.add(line(n)));
    const full = store.slabBytes;
    // Every row but one in twenty: the early slabs fall below a quarter of live records.
    rows.forEach((row, n) => n % 20 !== 0 && store.delete(row));
    expect(store.slabBytes).toBeLessThan(full);
    rows.forEach((row, n) => n % 20 === 0 && expect(store.get(row)).toEqual(line(n)));
  });

  it('snapshots records as they are: later writes and compactions do not change them', () => {
    const store = new RecordStore();
    const rows = Array.from({ length: 5000 }, (_, n) => store.add(line(n)));
    const snapshot = store.snapshot(rows);
    rows.forEach((row, n) => (n % 10 === 0 ? store.replace(row, { n, replaced: true }) : store.delete(row)));
    expect(snapshot.length).toBe(5000);
    for (const n of [0, 1, 2500, 4999]) expect(snapshot.document(n)).toEqual(line(n));
  });
});
