import { dimensionRead, tagRead } from '../rollups/rollup-fields';

/** One group of cost as AllocatedCosts reads it: the fields it was grouped by, its cost and line items. */
export interface PieceRow {
  _id: Record<string, unknown>;
  cost: number;
  lineItems: number;
}

type Tag = { group: string; key: string; value: string };

/**
 * Rows of cost merged by what is read of them: each keeps `period` and the `plain` fields, and of
 * its tags and dimensions only those `reads` names (`tags["<group>","<key>"]`, `dimensions.<name>`);
 * rows then alike are summed. The splits, the reader's filter and the caller read nothing else,
 * so they answer the same over fewer pieces (rows grouped by every activated key and dimension
 * hardly merge: one per combination of their values).
 */
export function mergeByReads(rows: readonly PieceRow[], plain: readonly string[], reads: ReadonlySet<string>): PieceRow[] {
  const merged = new Map<string, PieceRow>();
  for (const row of rows) {
    const id: Record<string, unknown> = { period: row._id.period };
    for (const field of plain) id[field] = row._id[field];
    const tags = row._id.tags as Tag[] | undefined;
    if (tags !== undefined) id.tags = tags.filter((tag) => reads.has(tagRead(tag.group, tag.key)));
    const dimensions = row._id.dimensions as Record<string, string> | undefined;
    if (dimensions !== undefined)
      id.dimensions = Object.fromEntries(Object.entries(dimensions).filter(([name]) => reads.has(dimensionRead(name))));
    const key = JSON.stringify(id);
    const known = merged.get(key);
    if (known) {
      known.cost += row.cost;
      known.lineItems += row.lineItems;
    } else merged.set(key, { _id: id, cost: row.cost, lineItems: row.lineItems });
  }
  return [...merged.values()];
}
