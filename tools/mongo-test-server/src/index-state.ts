import BTree from 'sorted-btree';
import { bulkLoad } from 'sorted-btree/extended/bulkLoad';
import union from 'sorted-btree/extended/union';
import { formatDocument, isPlainObject, toNumber, type Document, type StringFold } from './bson-values';
import { foldFor, type FoldLevel, type ResolvedCollation } from './collation';
import { indexValues } from './document-paths';
import { commandError, DuplicateKeyError } from './errors';
import { complement, encodeValue, KeyWriter } from './key-encoding';
import { PendingEntries } from './pending-entries';
import type { Matcher } from './query-engine';

/** An index as listIndexes reports it. */
export interface IndexSpec extends Document {
  v: number;
  key: Document;
  name: string;
}

/** One contiguous stretch of index keys: every key k with start <= k < end. */
export interface KeyRange {
  start: string;
  end: string;
}

const compareStrings = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const NODE_SIZE = 64;
/** Entries of a non-unique index kept aside before they are merged into its tree in key order. */
const MAX_PENDING = 16_384;
const writer = new KeyWriter();
/** Met an array on the way: the document needs the multikey path. */
const ARRAY = Symbol('array');

/** The value at a dotted path through plain objects; ARRAY if an array is met. */
function resolvePath(doc: Document, parts: string[]): unknown {
  let current: unknown = doc;
  for (const part of parts) {
    if (Array.isArray(current)) return ARRAY;
    if (current === null || typeof current !== 'object' || !isPlainObject(current)) return undefined;
    current = (current as Document)[part];
  }
  return Array.isArray(current) ? ARRAY : current;
}

/**
 * One index, kept as an ordered B+ tree. Each entry's key is the concatenation of the encoded
 * field values (complemented for descending fields) followed by the document's `_id` key, so
 * entries are unique even for equal index values; the entry's value is that `_id` key. The `_id`
 * index stores just the `_id` key. An array value gives one entry per element (multikey).
 */
export class IndexState {
  readonly fields: string[];
  readonly directions: Array<1 | -1>;
  readonly level: FoldLevel;
  readonly fold: StringFold;
  readonly unique: boolean;
  readonly sparse: boolean;
  readonly isIdIndex: boolean;
  /** Per field: whether some document gave an array for it (mongod's multiKeyPaths). */
  readonly multikeyFields: boolean[];
  private entries = new BTree<string, string>(undefined, compareStrings, NODE_SIZE);
  /**
   * New entries of a non-unique index not yet in the tree. Inserting keys one document at a time
   * lands each in a different part of the tree (a cache miss per level); merged in key order,
   * consecutive entries go to the same leaf. Every read of the tree merges them first, so no
   * reader ever sees the index without them.
   */
  private pending = new PendingEntries();
  /** Changes with every modification of the tree: a cursor saved before a change re-seeks. */
  version = 0;
  /** Set when the index is dropped (queries using it stop with QueryPlanKilled). */
  dropped = false;
  private readonly paths: string[][];

  constructor(
    readonly spec: IndexSpec,
    readonly collation: ResolvedCollation | null,
    readonly partialFilter: Matcher | null,
  ) {
    this.fields = Object.keys(spec.key);
    this.directions = this.fields.map((field) => ((toNumber(spec.key[field]) ?? 1) < 0 ? -1 : 1));
    this.level = collation?.level ?? 0;
    this.fold = foldFor(this.level);
    this.isIdIndex = spec.name === '_id_';
    this.unique = spec.unique === true || this.isIdIndex;
    this.sparse = spec.sparse === true;
    this.multikeyFields = this.fields.map(() => false);
    this.paths = this.fields.map((field) => field.split('.'));
  }

  get isMultikey(): boolean {
    return this.multikeyFields.some(Boolean);
  }

  /** The B+ tree of entries, with every pending entry merged in. */
  get tree(): BTree<string, string> {
    if (this.pending.size > 0) this.mergePending();
    return this.entries;
  }

  private mergePending(): void {
    const { keys, ids } = this.pending.drain();
    // The union walks both trees, keeping whole subtrees of the index that no new key falls into.
    this.entries = union<BTree<string, string>, string, string>(this.entries, bulkLoad(keys, ids, NODE_SIZE, compareStrings), (_key, _old, added) => added);
  }

  get size(): number {
    return this.tree.size;
  }

  /**
   * The entry keys of a document (encoded field values, then its `_id` key); empty when the
   * index leaves it out. The `_id` index's only key is the `_id` key itself.
   */
  keysFor(doc: Document, idKey: string): string[] {
    if (this.isIdIndex) return [idKey];
    if (this.partialFilter && !this.partialFilter.test(doc)) return [];
    writer.reset();
    let allMissing = true;
    for (let i = 0; i < this.paths.length; i++) {
      const value = resolvePath(doc, this.paths[i]);
      if (value === ARRAY) return this.multikeyKeys(doc, idKey);
      if (value !== undefined) allMissing = false;
      const start = writer.length;
      writer.value(value, this.fold);
      if (this.directions[i] === -1) writer.complementSince(start);
    }
    if (this.sparse && allMissing) return [];
    writer.encoded(idKey);
    return [writer.take()];
  }

  /** One key per array element (a multikey document); at most one field may hold an array. */
  private multikeyKeys(doc: Document, idKey: string): string[] {
    const perField = this.fields.map((field) => indexValues(doc, field));
    if (this.sparse && perField.every(({ values }) => values.every((value) => value === undefined))) return [];
    const arrayFields = this.fields.filter((_, i) => perField[i].isArray);
    if (arrayFields.length > 1) {
      throw commandError('CannotIndexParallelArrays', `cannot index parallel arrays [${arrayFields[1]}] [${arrayFields[0]}]`);
    }
    let keys = [''];
    perField.forEach(({ values, isArray }, i) => {
      if (isArray) this.multikeyFields[i] = true;
      const encoded = values.map((value) => {
        const key = encodeValue(value, this.fold);
        return this.directions[i] === 1 ? key : complement(key);
      });
      keys = keys.flatMap((prefix) => encoded.map((part) => prefix + part));
    });
    return [...new Set(keys)].map((key) => {
      writer.reset().encoded(key);
      writer.encoded(idKey);
      return writer.take();
    });
  }

  /** The field values behind one encoded key prefix of `doc` (for duplicate key messages). */
  private tupleFor(doc: Document, prefix: string): Document {
    const perField = this.fields.map((field) => indexValues(doc, field).values);
    let tuples: unknown[][] = [[]];
    for (const values of perField) tuples = tuples.flatMap((head) => values.map((value) => [...head, value]));
    const tuple =
      tuples.find(
        (candidate) =>
          candidate
            .map((value, i) => {
              const encoded = encodeValue(value, this.fold);
              return this.directions[i] === 1 ? encoded : complement(encoded);
            })
            .join('') === prefix,
      ) ?? tuples[0];
    const keyValue: Document = {};
    this.fields.forEach((field, i) => (keyValue[field] = tuple[i] === undefined ? null : tuple[i]));
    return keyValue;
  }

  /** mongod's E11000 error for the entry `key` of `doc` (whose `_id` key is `idKey`). */
  duplicateError(ns: string, doc: Document, key: string, idKey: string): DuplicateKeyError {
    const keyValue = this.tupleFor(doc, key.slice(0, key.length - idKey.length));
    const collationNote = this.collation ? ` collation: ${formatDocument(this.collation.spec)}` : '';
    return new DuplicateKeyError(
      `E11000 duplicate key error collection: ${ns} index: ${this.spec.name}${collationNote} dup key: ${formatDocument(keyValue)}`,
      { ...this.spec.key },
      keyValue,
    );
  }

  /** The `_id` key of another document holding the same values as entry `key`, if any (unique indexes). */
  ownerOf(key: string, ownIdKey: string): string | undefined {
    if (this.isIdIndex) {
      const found = this.tree.get(key);
      return found !== undefined && found !== ownIdKey ? found : undefined;
    }
    const prefix = key.slice(0, key.length - ownIdKey.length);
    let candidate = this.tree.nextHigherPair(prefix);
    while (candidate && candidate[0].startsWith(prefix)) {
      if (candidate[1] !== ownIdKey) return candidate[1];
      candidate = this.tree.nextHigherPair(candidate[0]);
    }
    return undefined;
  }

  /** Throws mongod's duplicate key error if another document already holds one of `keys`. */
  checkAvailable(ns: string, doc: Document, keys: string[], ownIdKey: string): void {
    if (!this.unique) return;
    for (const key of keys) {
      if (this.ownerOf(key, ownIdKey) !== undefined) throw this.duplicateError(ns, doc, key, ownIdKey);
    }
  }

  add(keys: string[], idKey: string): void {
    this.version++;
    if (this.unique) {
      // A unique index is checked against its tree before every insertion: no deferral.
      for (const key of keys) this.entries.set(key, idKey);
      return;
    }
    for (const key of keys) this.pending.add(key, idKey);
    if (this.pending.size >= MAX_PENDING) this.mergePending();
  }

  remove(keys: string[]): void {
    this.version++;
    for (const key of keys) this.tree.delete(key);
  }

  /** Replaces the whole content by sorted entries (index builds and recovery). */
  load(entries: Array<[string, string]>): void {
    entries.sort((a, b) => compareStrings(a[0], b[0]));
    this.version++;
    this.pending = new PendingEntries();
    this.entries = bulkLoad(
      entries.map((entry) => entry[0]),
      entries.map((entry) => entry[1]),
      NODE_SIZE,
      compareStrings,
    );
  }

  /** A cursor over the entries inside the ranges, in index order (or reverse), counting keys seen. */
  cursor(ranges: KeyRange[], direction: 1 | -1, stats: { keysExamined: number; seeks: number }): IndexCursor {
    return new IndexCursor(this, ranges, direction, stats);
  }
}

/**
 * Walks an index's entries over a list of ranges. Between two calls the tree may change (other
 * operations run while a query yields): the cursor then re-seeks just past the last key it
 * returned, as mongod's index cursors do when they restore their position after a yield.
 */
export class IndexCursor {
  private readonly ranges: KeyRange[];
  private rangeIndex = 0;
  private entries: Iterator<[string, string]> | null = null;
  private lastKey: string | null = null;
  private version: number;
  private tree: BTree<string, string>;
  private readonly reused: Array<string> = [];

  constructor(
    private readonly index: IndexState,
    ranges: KeyRange[],
    private readonly direction: 1 | -1,
    private readonly stats: { keysExamined: number; seeks: number },
  ) {
    this.ranges = direction === 1 ? ranges : [...ranges].reverse();
    this.version = index.version;
    this.tree = index.tree;
  }

  /** The `_id` key of the next entry, or undefined at the end. */
  next(): string | undefined {
    if (this.index.version !== this.version || this.index.tree !== this.tree) {
      // The tree changed since the last call: continue from the last key in the new tree.
      this.version = this.index.version;
      this.tree = this.index.tree;
      if (this.entries) this.entries = this.seek(this.lastKey);
    }
    for (;;) {
      const range = this.ranges[this.rangeIndex];
      if (!range) return undefined;
      if (!this.entries) {
        this.stats.seeks++;
        this.entries = this.seek(null);
      }
      const step = this.entries.next();
      const key = step.done ? undefined : step.value[0];
      const inside = key !== undefined && (this.direction === 1 ? key < range.end : key >= range.start);
      if (!inside || key === undefined) {
        this.rangeIndex++;
        this.entries = null;
        continue;
      }
      if (key === this.lastKey) continue;
      this.lastKey = key;
      this.stats.keysExamined++;
      return step.value[1];
    }
  }

  /** Entries of the current range from its start, or strictly after `after`. */
  private seek(after: string | null): Iterator<[string, string]> {
    const range = this.ranges[this.rangeIndex];
    if (this.direction === 1) {
      const from = after !== null && after > range.start ? after : range.start;
      return this.tree.entries(from, this.reused as never);
    }
    const from = after !== null && after < range.end ? after : range.end;
    return this.tree.entriesReversed(from, this.reused as never, true);
  }
}

/** Sparse and partial indexes leave documents out; `_id_` and plain indexes hold every one. */
export function holdsEveryDocument(index: IndexState): boolean {
  return !index.sparse && !index.partialFilter;
}
