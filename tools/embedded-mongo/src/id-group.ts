import type { Document } from './bson-values';

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
  /**
   * The document of each id, in the same places: a walk hands it over without a lookup by `_id`
   * (undefined where it is not known, then looked up).
   */
  readonly docs: Array<Array<Document | undefined>> = [];
  size = 0;

  constructor(private readonly chunkSize = CHUNK) {}

  static of(sortedIds: string[], docs: Array<Document | undefined>, chunkSize = CHUNK): Group {
    const group = new Group(chunkSize);
    for (let start = 0; start < sortedIds.length; start += chunkSize) {
      group.chunks.push(sortedIds.slice(start, start + chunkSize));
      group.docs.push(docs.slice(start, start + chunkSize));
    }
    group.size = sortedIds.length;
    return group;
  }

  /** Adds `idKey` with its document; false if it was there. */
  add(idKey: string, doc: Document | undefined): boolean {
    const lastChunk = this.chunks.length - 1;
    const last = this.chunks[lastChunk];
    if (last === undefined || idKey > last[last.length - 1]) {
      if (last === undefined || last.length >= this.chunkSize) {
        this.chunks.push([idKey]);
        this.docs.push([doc]);
      } else {
        last.push(idKey);
        this.docs[lastChunk].push(doc);
      }
      this.size++;
      return true;
    }
    const c = this.chunkFor(idKey);
    const chunk = this.chunks[c];
    const at = lowerBound(chunk, idKey);
    if (chunk[at] === idKey) return false;
    chunk.splice(at, 0, idKey);
    this.docs[c].splice(at, 0, doc);
    if (chunk.length > 2 * this.chunkSize) {
      this.chunks.splice(c + 1, 0, chunk.splice(this.chunkSize));
      this.docs.splice(c + 1, 0, this.docs[c].splice(this.chunkSize));
    }
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
    this.docs[c].splice(at, 1);
    if (chunk.length === 0) {
      this.chunks.splice(c, 1);
      this.docs.splice(c, 1);
    }
    this.size--;
    return true;
  }

  /** Gives `idKey` its document's new version. */
  refresh(idKey: string, doc: Document): void {
    if (this.size === 0) return;
    const c = this.chunkFor(idKey);
    const at = lowerBound(this.chunks[c], idKey);
    if (this.chunks[c][at] === idKey) this.docs[c][at] = doc;
  }

  /** The chunk that holds `idKey` or would: the last whose first id is <= it (the first if none). */
  chunkFor(idKey: string): number {
    let low = 0;
    let high = this.chunks.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.chunks[middle][0] <= idKey) low = middle;
      else high = middle - 1;
    }
    return low;
  }
}

/** The first position whose id is >= `idKey`. */
export function lowerBound(ids: string[], idKey: string): number {
  let low = 0;
  let high = ids.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (ids[middle] < idKey) low = middle + 1;
    else high = middle;
  }
  return low;
}
