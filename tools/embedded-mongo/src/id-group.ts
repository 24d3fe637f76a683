/** Ids per chunk of a group: appending is a push; an insertion or removal moves at most twice this many. */
export const CHUNK = 256;

/**
 * The `_id` keys of the documents sharing one set of index values, ascending, in chunks of at
 * most 2 × CHUNK: a B+ tree of two levels whose common case, an `_id` greater than every other
 * (documents mostly arrive in `_id` order), costs one comparison and a push.
 */
export class Group {
  /** Read by index walks (grouped-entries.ts), changed only here. */
  readonly chunks: string[][] = [];
  size = 0;

  constructor(private readonly chunkSize = CHUNK) {}

  static of(sortedIds: string[], chunkSize = CHUNK): Group {
    const group = new Group(chunkSize);
    for (let start = 0; start < sortedIds.length; start += chunkSize) group.chunks.push(sortedIds.slice(start, start + chunkSize));
    group.size = sortedIds.length;
    return group;
  }

  /** Adds `idKey`; false if it was there. */
  add(idKey: string): boolean {
    const last = this.chunks[this.chunks.length - 1];
    if (last === undefined || idKey > last[last.length - 1]) {
      if (last === undefined || last.length >= this.chunkSize) this.chunks.push([idKey]);
      else last.push(idKey);
      this.size++;
      return true;
    }
    const c = this.chunkFor(idKey);
    const chunk = this.chunks[c];
    const at = lowerBound(chunk, idKey);
    if (chunk[at] === idKey) return false;
    chunk.splice(at, 0, idKey);
    if (chunk.length > 2 * this.chunkSize) this.chunks.splice(c + 1, 0, chunk.splice(this.chunkSize));
    this.size++;
    return true;
  }

  /** Removes `idKey`; false if it was not there. */
  delete(idKey: string): boolean {
    if (this.size === 0) return false;
    const c = this.chunkFor(idKey);
    const chunk = this.chunks[c];
    const at = lowerBound(chunk, idKey);
    if (chunk[at] !== idKey) return false;
    chunk.splice(at, 1);
    if (chunk.length === 0) this.chunks.splice(c, 1);
    this.size--;
    return true;
  }

  /**
   * The chunk that holds `idKey` or would: the last whose first id is <= it (the first if none).
   * `compare` orders an id against `idKey` (a bound, see GroupedEntries).
   */
  chunkFor(idKey: string, compare: IdOrder = compareIds): number {
    let low = 0;
    let high = this.chunks.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (compare(this.chunks[middle][0], idKey) <= 0) low = middle;
      else high = middle - 1;
    }
    return low;
  }
}

/** How an id compares with a bound: negative, zero or positive. */
export type IdOrder = (id: string, bound: string) => number;

export const compareIds: IdOrder = (id, bound) => (id < bound ? -1 : id > bound ? 1 : 0);

/**
 * How `id + id` compares with `bound`, without making that string: the order of an index whose
 * last field is `_id`, whose entries are their other values followed by the `_id` twice (once as
 * the field, once as the entry's own `_id` key). Encodings are prefix-free, so ids keep their
 * order when doubled.
 */
export const compareDoubledIds: IdOrder = (id, bound) => {
  const length = id.length;
  const limit = Math.min(2 * length, bound.length);
  for (let i = 0; i < limit; i++) {
    const a = id.charCodeAt(i < length ? i : i - length);
    const b = bound.charCodeAt(i);
    if (a !== b) return a - b;
  }
  return 2 * length - bound.length;
};

/** The first position whose id is >= `idKey` (under `compare`). */
export function lowerBound(ids: string[], idKey: string, compare: IdOrder = compareIds): number {
  let low = 0;
  let high = ids.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (compare(ids[middle], idKey) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}
