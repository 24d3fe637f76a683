import BTree from 'sorted-btree';
import { bulkLoad } from 'sorted-btree/extended/bulkLoad';
import { CHUNK, compareDoubledIds, compareIds, Group, lowerBound, type IdOrder } from './id-group';

export const compareStrings = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
export const NODE_SIZE = 64;

/**
 * The entries of a non-unique index: an entry's key is its index values' encoding (the prefix)
 * followed by its document's `_id` key, and the entries sharing a prefix are kept together as
 * one ordered set of `_id` keys. Because encodings are prefix-free, the order of (prefix, `_id`
 * key) pairs is the order of the whole keys, so walks over key ranges see the entries exactly as
 * if every whole key were stored. Storing the prefix once per group and the `_id` key string
 * that the collection already holds, an entry adds no string of its own: a load keeps far fewer
 * long-lived objects for the garbage collector to trace, and a new document's `_id` lands at the
 * end of its group (documents mostly arrive in `_id` order) instead of somewhere in a large tree.
 * A prefix held by one document only (an index ending with `_id`, or a value unique to it) keeps
 * that document's `_id` key as its group, in the tree only: no group object and no hash entry.
 */
export class GroupedEntries {
  /**
   * Every prefix's entries in prefix order (walks), and the groups of two ids or more by prefix (writes: a hash lookup instead of
   * string comparisons).
   */
  private groups = new BTree<string, Entries>(undefined, compareStrings, NODE_SIZE);
  private byPrefix = new Map<string, Group>();
  /** The group of the last `add` (cleared when groups are removed or replaced). */
  private lastPrefix: string | null = null;
  private lastGroup: Group | undefined = undefined;
  size = 0;

  /** How an entry's `_id` key compares with the part of a bound after its prefix. */
  private readonly compareId: IdOrder;

  /**
   * `chunkSize`: see Group (smaller in tests, to exercise splits). `doubledIds`: the index ends
   * with `_id`, whose value is left out of the prefixes; an entry's key is then its prefix followed
   * by its `_id` key twice (see compareDoubledIds), so that the documents of the other values share
   * one prefix and one group instead of a prefix string each.
   */
  constructor(
    private readonly chunkSize = CHUNK,
    readonly doubledIds = false,
  ) {
    this.compareId = doubledIds ? compareDoubledIds : compareIds;
  }

  /** The part of an entry's key after its prefix. */
  suffixOf(idKey: string): string {
    return this.doubledIds ? idKey + idKey : idKey;
  }

  add(prefix: string, idKey: string): void {
    // Consecutive documents often share their index values (one upload's account and period).
    let group = prefix === this.lastPrefix ? this.lastGroup : this.byPrefix.get(prefix);
    if (!group) {
      // A prefix that no document holds yet becomes a single id, kept in the tree only.
      if (this.groups.set(prefix, idKey, false)) {
        this.size++;
        return;
      }
      const single = this.groups.get(prefix) as string;
      if (single === idKey) return;
      // A second document with these values: the single id becomes a group.
      group = Group.of(single < idKey ? [single, idKey] : [idKey, single], this.chunkSize);
      this.groups.set(prefix, group);
      this.byPrefix.set(prefix, group);
      this.size++;
    } else if (group.add(idKey)) this.size++;
    this.lastPrefix = prefix;
    this.lastGroup = group;
  }

  delete(prefix: string, idKey: string): void {
    const group = this.byPrefix.get(prefix);
    if (!group) {
      if (this.groups.get(prefix) !== idKey) return;
    } else {
      if (!group.delete(idKey)) return;
      if (group.size > 0) {
        this.size--;
        return;
      }
      this.byPrefix.delete(prefix);
    }
    this.size--;
    this.groups.delete(prefix);
    if (prefix === this.lastPrefix) this.lastPrefix = null;
  }

  /** Replaces the content by entries given as parallel arrays, sorted by prefix then `_id` key, without repeats. */
  load(prefixes: string[], idKeys: string[]): void {
    this.size = idKeys.length;
    const groupPrefixes: string[] = [];
    const groups: Entries[] = [];
    for (let start = 0; start < prefixes.length;) {
      let end = start + 1;
      while (end < prefixes.length && prefixes[end] === prefixes[start]) end++;
      groupPrefixes.push(prefixes[start]);
      groups.push(end === start + 1 ? idKeys[start] : Group.of(idKeys.slice(start, end), this.chunkSize));
      start = end;
    }
    this.groups = bulkLoad<string, Entries>(groupPrefixes, groups, NODE_SIZE, compareStrings);
    this.byPrefix = new Map();
    groups.forEach((group, i) => {
      if (typeof group !== 'string') this.byPrefix.set(groupPrefixes[i], group);
    });
    this.lastPrefix = null;
  }

  /**
   * The `_id` keys of the entries whose whole key k has from <= k < end, ascending, leaving out
   * the entry `skip` (a position already returned). `at.prefix` tells each one's group.
   */
  *ascending(from: string, end: string, skip: Position | null, at: WalkPosition): Generator<string, void, undefined> {
    // The group whose prefix starts `from` (at most one can: encodings are prefix-free), then every greater one.
    const below = this.groups.getPairOrNextLower(from);
    for (const [prefix, group] of this.groups.entries(below && from.startsWith(below[0]) ? below[0] : from)) {
      if (prefix >= end) return;
      // Only the first group can sort before `from`: then `from` continues into its `_id` keys.
      const idFrom = prefix < from ? from.slice(prefix.length) : undefined;
      const idEnd = end.startsWith(prefix) ? end.slice(prefix.length) : null;
      if (typeof group === 'string') {
        if (idFrom !== undefined && this.compareId(group, idFrom) < 0) continue;
        if (idEnd !== null && this.compareId(group, idEnd) >= 0) return;
        if (skip !== null && group === skip.idKey && prefix === skip.prefix) continue;
        at.prefix = prefix;
        yield group;
        continue;
      }
      // The group's ids walked in place (one generator for the whole walk).
      const chunks = group.chunks;
      let c = idFrom === undefined ? 0 : group.chunkFor(idFrom, this.compareId);
      let position = idFrom === undefined || chunks.length === 0 ? 0 : lowerBound(chunks[c], idFrom, this.compareId);
      walk: for (; c < chunks.length; c++, position = 0) {
        const chunk = chunks[c];
        for (; position < chunk.length; position++) {
          const idKey = chunk[position];
          if (idEnd !== null && this.compareId(idKey, idEnd) >= 0) break walk;
          if (skip !== null && idKey === skip.idKey && prefix === skip.prefix) continue;
          at.prefix = prefix;
          yield idKey;
        }
      }
    }
  }

  /** The `_id` keys of the entries whose whole key k has start <= k < to, descending. */
  *descending(start: string, to: string, at: WalkPosition): Generator<string, void, undefined> {
    for (const [prefix, group] of this.groups.entriesReversed(to, undefined, true)) {
      let idFrom: string | null = null;
      if (prefix < start) {
        if (!start.startsWith(prefix)) return;
        idFrom = start.slice(prefix.length);
      }
      const idTo = to.startsWith(prefix) ? to.slice(prefix.length) : undefined;
      if (typeof group === 'string') {
        if (idTo !== undefined && this.compareId(group, idTo) >= 0) continue;
        if (idFrom !== null && this.compareId(group, idFrom) < 0) return;
        at.prefix = prefix;
        yield group;
        continue;
      }
      const chunks = group.chunks;
      if (chunks.length === 0) continue;
      let c = idTo === undefined ? chunks.length - 1 : group.chunkFor(idTo, this.compareId);
      let position = idTo === undefined ? chunks[c].length - 1 : lowerBound(chunks[c], idTo, this.compareId) - 1;
      walk: for (; c >= 0; c--, position = c >= 0 ? chunks[c].length - 1 : 0) {
        const chunk = chunks[c];
        for (; position >= 0; position--) {
          const idKey = chunk[position];
          if (idFrom !== null && this.compareId(idKey, idFrom) < 0) break walk;
          at.prefix = prefix;
          yield idKey;
        }
      }
    }
  }
}

/** The `_id` keys of one prefix: the key itself when it is the only one. */
type Entries = Group | string;

/** An entry of a grouped index: its group's prefix and its document's `_id` key. */
export interface Position {
  prefix: string;
  idKey: string;
}

/** Where a walk is: the entry's group prefix. */
interface WalkPosition {
  prefix: string;
}

export interface CursorStats {
  keysExamined: number;
  seeks: number;
}

type Range = { start: string; end: string };

/**
 * Walks a grouped index over key ranges, in key order or reverse, returning `_id` keys. When the
 * index changed between two calls (`version`), it re-seeks just past the last entry it returned,
 * as the whole-key cursor does.
 */
export class GroupedCursor {
  private readonly ranges: Range[];
  private rangeIndex = 0;
  private walk: Generator<string, void, undefined> | null = null;
  private readonly at: WalkPosition = { prefix: '' };
  /** The last entry returned (its `idKey` empty before the first). */
  private readonly last: Position = { prefix: '', idKey: '' };
  private version: number;

  constructor(
    private readonly owner: { readonly version: number; readonly grouped: GroupedEntries },
    ranges: Range[],
    private readonly direction: 1 | -1,
    private readonly stats: CursorStats,
  ) {
    this.ranges = direction === 1 ? ranges : [...ranges].reverse();
    this.version = owner.version;
  }

  /** The `_id` key of the next entry, or undefined at the end. */
  next(): string | undefined {
    if (this.owner.version !== this.version) {
      this.version = this.owner.version;
      if (this.walk) this.walk = this.open(this.last.idKey === '' ? null : this.last);
    }
    for (;;) {
      if (this.rangeIndex >= this.ranges.length) return undefined;
      if (!this.walk) {
        this.stats.seeks++;
        this.walk = this.open(null);
      }
      const step = this.walk.next();
      if (step.done) {
        this.rangeIndex++;
        this.walk = null;
        continue;
      }
      this.last.prefix = this.at.prefix;
      this.last.idKey = step.value;
      this.stats.keysExamined++;
      return step.value;
    }
  }

  /** The walk of the current range from its start, or just past `after`. */
  private open(after: Position | null): Generator<string, void, undefined> {
    const range = this.ranges[this.rangeIndex];
    const grouped = this.owner.grouped;
    const afterKey = after ? after.prefix + grouped.suffixOf(after.idKey) : null;
    if (this.direction === 1) {
      const resumes = afterKey !== null && afterKey >= range.start;
      return grouped.ascending(resumes ? (afterKey as string) : range.start, range.end, resumes ? after : null, this.at);
    }
    return grouped.descending(range.start, afterKey !== null && afterKey < range.end ? afterKey : range.end, this.at);
  }
}
