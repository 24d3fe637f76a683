import BTree from 'sorted-btree';
import { bulkLoad } from 'sorted-btree/extended/bulkLoad';
import { formatDocument, isPlainObject, toNumber, type Document, type StringFold } from './bson-values';
import { foldFor, type FoldLevel, type ResolvedCollation } from './collation';
import { indexValues } from './document-paths';
import { commandError, DuplicateKeyError } from './errors';
import { compareStrings, GroupedCursor, GroupedEntries, NODE_SIZE } from './grouped-entries';
import { IndexKeyCache, isCacheableValue } from './index-key-cache';
import { complement, encodeValue, KeyWriter } from './key-encoding';
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

const writer = new KeyWriter();
/** Met an array on the way: the document needs the multikey path. */
const ARRAY = Symbol('array');

/** The value at a dotted path through plain objects (a stored document is one); ARRAY if an array is met. */
function resolvePath(doc: Document, parts: string[]): unknown {
  let current: unknown = doc[parts[0]];
  for (let i = 1; i < parts.length; i++) {
    if (Array.isArray(current)) return ARRAY;
    if (current === null || typeof current !== 'object' || !isPlainObject(current)) return undefined;
    current = (current as Document)[parts[i]];
  }
  return Array.isArray(current) ? ARRAY : current;
}

/**
 * One index, ordered by entry keys: the concatenation of the encoded field values (complemented
 * for descending fields) followed by the document's `_id` key, so entries are unique even for
 * equal index values; each entry leads to that `_id` key. A unique index (and `_id_`, whose key
 * is just the `_id` key) is a B+ tree of whole keys, checked before each insertion; a non-unique
 * index keeps the `_id` keys grouped by index values (grouped-entries.ts), in the same order. An
 * array value gives one entry per element (multikey).
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
  /** Whole keys of a unique index. */
  private entries = new BTree<string, string>(undefined, compareStrings, NODE_SIZE);
  /** Entries of a non-unique index. */
  grouped = new GroupedEntries();
  /** Fields whose values make a key: all of them, or all but a last `_id` (see sharePrefixesBeforeId). */
  private keyFields: number;
  /** Changes with every modification of the tree: a cursor saved before a change re-seeks. */
  version = 0;
  /** Set when the index is dropped (queries using it stop with QueryPlanKilled). */
  dropped = false;
  private readonly paths: string[][];
  /** The field values of the document being keyed (reused). */
  private readonly values: unknown[];
  /** Keys by field values (non-unique indexes: a unique index's keys end with the `_id` key). */
  private readonly keyCache: IndexKeyCache | null;

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
    this.values = this.fields.map(() => undefined);
    this.keyCache = this.unique ? null : new IndexKeyCache();
    this.keyFields = this.fields.length;
  }

  /**
   * Before the first entry, told the fold of the collection's `_id` keys: a non-unique index ending
   * with `_id: 1` whose fold is the same leaves the `_id` out of its prefixes, since an entry's own
   * `_id` key, which follows, encodes the same value (GroupedEntries' doubled ids). The documents
   * of one tenant and account then share a prefix and a group, as in the index without `_id`,
   * instead of each making a prefix string and a tree entry of its own.
   */
  sharePrefixesBeforeId(idLevel: FoldLevel): void {
    const last = this.fields.length - 1;
    if (this.unique || last < 1 || this.fields[last] !== '_id' || this.directions[last] !== 1 || idLevel !== this.level) return;
    this.keyFields = last;
    this.grouped = new GroupedEntries(undefined, true);
  }

  get isMultikey(): boolean {
    return this.multikeyFields.some(Boolean);
  }

  /** The B+ tree of whole keys (unique indexes). */
  get tree(): BTree<string, string> {
    return this.entries;
  }

  get size(): number {
    return this.unique ? this.entries.size : this.grouped.size;
  }

  /**
   * The entry keys of a document; empty when the index leaves it out. A unique index's are whole
   * keys (encoded field values, then the `_id` key; the `_id` index's only key is the `_id` key
   * itself); a non-unique index's are the encoded field values alone, its group prefixes.
   */
  keysFor(doc: Document, idKey: string): string[] {
    if (this.isIdIndex) return [idKey];
    if (this.partialFilter && !this.partialFilter.test(doc)) return [];
    const values = this.values;
    // A document always has an `_id`: an index ending with it never leaves one out as sparse.
    let allMissing = this.keyFields === this.fields.length;
    let cacheable = this.keyCache !== null;
    for (let i = 0; i < this.keyFields; i++) {
      const value = resolvePath(doc, this.paths[i]);
      if (value === ARRAY) return this.multikeyKeys(doc, idKey);
      if (value !== undefined) allMissing = false;
      if (cacheable && !isCacheableValue(value)) cacheable = false;
      values[i] = value;
    }
    if (this.sparse && allMissing) return [];
    const cached = cacheable ? (this.keyCache as IndexKeyCache).get(values) : undefined;
    if (cached !== undefined) return [cached];
    writer.reset();
    for (let i = 0; i < this.keyFields; i++) {
      const start = writer.length;
      writer.value(values[i], this.fold);
      if (this.directions[i] === -1) writer.complementSince(start);
    }
    if (this.unique) writer.encoded(idKey);
    const key = writer.take();
    if (cacheable) (this.keyCache as IndexKeyCache).set(values, key);
    return [key];
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
      if (i >= this.keyFields) return;
      const encoded = values.map((value) => {
        const key = encodeValue(value, this.fold);
        return this.directions[i] === 1 ? key : complement(key);
      });
      keys = keys.flatMap((prefix) => encoded.map((part) => prefix + part));
    });
    return [...new Set(keys)].map((key) => {
      writer.reset().encoded(key);
      if (this.unique) writer.encoded(idKey);
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
      // A unique index is checked against its tree before every insertion.
      for (const key of keys) this.entries.set(key, idKey);
      return;
    }
    for (const prefix of keys) this.grouped.add(prefix, idKey);
  }

  remove(keys: string[], idKey: string): void {
    this.version++;
    if (this.unique) for (const key of keys) this.entries.delete(key);
    else for (const prefix of keys) this.grouped.delete(prefix, idKey);
  }

  /** Replaces the whole content by these entries, [key from keysFor, `_id` key] (index builds and recovery). */
  load(entries: Array<[string, string]>): void {
    this.version++;
    if (!this.unique) {
      entries.sort((a, b) => compareStrings(a[0], b[0]) || compareStrings(a[1], b[1]));
      this.grouped.load(
        entries.map((entry) => entry[0]),
        entries.map((entry) => entry[1]),
      );
      return;
    }
    entries.sort((a, b) => compareStrings(a[0], b[0]));
    this.entries = bulkLoad(
      entries.map((entry) => entry[0]),
      entries.map((entry) => entry[1]),
      NODE_SIZE,
      compareStrings,
    );
  }

  /** A cursor over the entries inside the ranges, in index order (or reverse), counting keys seen. */
  cursor(ranges: KeyRange[], direction: 1 | -1, stats: { keysExamined: number; seeks: number }): IndexCursor {
    return this.unique ? new TreeCursor(this, ranges, direction, stats) : new GroupedCursor(this, ranges, direction, stats);
  }
}

/** Walks an index's entries over key ranges, returning `_id` keys. */
export type IndexCursor = TreeCursor | GroupedCursor;

/**
 * Walks a unique index's whole keys over a list of ranges. Between two calls the tree may change (other
 * operations run while a query yields): the cursor then re-seeks just past the last key it
 * returned, as mongod's index cursors do when they restore their position after a yield.
 */
export class TreeCursor {
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
