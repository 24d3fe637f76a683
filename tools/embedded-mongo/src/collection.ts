import { UUID } from 'bson';
import { formatDocument, type Document, type StringFold } from './bson-values';
import { foldFor, type ResolvedCollation } from './collation';
import { DuplicateKeyError } from './errors';
import { IndexState, type IndexSpec } from './index-state';
import { encodeValue } from './key-encoding';
import { PlanCache } from './plan-cache';
import { RecordStore, type RecordSnapshot } from './record-store';

const ID_INDEX_SPEC: IndexSpec = { v: 2, key: { _id: 1 }, name: '_id_' };

function sameKeys(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((key, i) => key === b[i]);
}

/** Receives every change to the stored data, in order (the journal of a durable server). */
export interface ChangeLog {
  createCollection(collection: Collection): void;
  dropCollection(db: string, name: string): void;
  dropDatabase(db: string): void;
  createIndex(collection: Collection, spec: IndexSpec): void;
  dropIndex(collection: Collection, name: string): void;
  /** An inserted or replaced document (the whole new version). */
  put(collection: Collection, doc: Document, raw?: Uint8Array): void;
  remove(collection: Collection, id: unknown): void;
}

/**
 * Documents of one collection, in insertion order, keyed by the encoded `_id` (see
 * key-encoding.ts), plus its indexes kept in step with every write. The documents are held in
 * their compact encoding (record-store.ts) and decoded when read: every read gets a new object,
 * so nothing a client receives (or a pipeline stage modifies) can change stored data.
 */
export class Collection {
  /** The row of each document in `records`, by `_id` key, in insertion order (the natural order). */
  private readonly rows = new Map<string, number>();
  private records = new RecordStore();
  readonly idIndex: IndexState;
  readonly indexes: IndexState[] = [];
  readonly uuid = new UUID();
  readonly planCache = new PlanCache();
  /** Set when the collection (or its database) is dropped: queries still running on it stop. */
  dropped = false;
  private readonly idFold: StringFold;

  constructor(
    readonly db: string,
    readonly name: string,
    readonly options: Document,
    readonly collation: ResolvedCollation | null,
    /** Where changes are recorded (set once recovery is over). */
    public log: ChangeLog | null = null,
  ) {
    this.idFold = foldFor(collation?.level ?? 0);
    this.idIndex = new IndexState(this.idIndexSpec, collation, null);
  }

  get ns(): string {
    return `${this.db}.${this.name}`;
  }

  get idIndexSpec(): IndexSpec {
    return this.collation ? { ...ID_INDEX_SPEC, collation: this.collation.spec } : ID_INDEX_SPEC;
  }

  /** `_id_` first, then the secondary indexes in creation order (as listIndexes reports them). */
  get allIndexes(): IndexState[] {
    return [this.idIndex, ...this.indexes];
  }

  idKeyOf(id: unknown): string {
    return encodeValue(id, this.idFold);
  }

  get size(): number {
    return this.rows.size;
  }

  getById(id: unknown): Document | undefined {
    return this.getByIdKey(this.idKeyOf(id));
  }

  /** The stored document with this `_id` key (a new object at each call). */
  getByIdKey(idKey: string): Document | undefined {
    const row = this.rows.get(idKey);
    return row === undefined ? undefined : this.records.get(row);
  }

  private duplicateIdError(id: unknown): DuplicateKeyError {
    return new DuplicateKeyError(
      `E11000 duplicate key error collection: ${this.ns} index: _id_ dup key: ${formatDocument({ _id: id })}`,
      { _id: 1 },
      { _id: id },
    );
  }

  /**
   * Inserts a document that already has an `_id`; throws DuplicateKeyError before changing
   * anything. `raw` is the document's BSON as received, reused by the journal when given.
   */
  insert(doc: Document, raw?: Uint8Array): void {
    const idKey = this.idKeyOf(doc._id);
    if (this.rows.has(idKey)) throw this.duplicateIdError(doc._id);
    const keys: string[][] = [];
    for (const index of this.indexes) {
      const indexKeys = index.keysFor(doc, idKey);
      index.checkAvailable(this.ns, doc, indexKeys, idKey);
      keys.push(indexKeys);
    }
    this.rows.set(idKey, this.records.add(doc));
    this.idIndex.add([idKey], idKey);
    for (let i = 0; i < keys.length; i++) this.indexes[i].add(keys[i], idKey);
    this.log?.put(this, doc, raw);
  }

  /** Replaces a stored document by a new version with the same `_id`. */
  replace(previous: Document, next: Document): void {
    const idKey = this.idKeyOf(previous._id);
    const changes: Array<readonly [string[], string[]]> = [];
    for (const index of this.indexes) {
      const oldKeys = index.keysFor(previous, idKey);
      const newKeys = index.keysFor(next, idKey);
      if (!sameKeys(oldKeys, newKeys)) index.checkAvailable(this.ns, next, newKeys, idKey);
      changes.push([oldKeys, newKeys]);
    }
    this.indexes.forEach((index, i) => {
      const [oldKeys, newKeys] = changes[i];
      if (sameKeys(oldKeys, newKeys)) return;
      index.remove(oldKeys, idKey);
      index.add(newKeys, idKey);
    });
    this.records.replace(this.rows.get(idKey) as number, next);
    this.log?.put(this, next);
  }

  remove(doc: Document): void {
    const idKey = this.idKeyOf(doc._id);
    for (const index of this.indexes) index.remove(index.keysFor(doc, idKey), idKey);
    this.idIndex.remove([idKey], idKey);
    const row = this.rows.get(idKey);
    if (row !== undefined) this.records.delete(row);
    this.rows.delete(idKey);
    this.log?.remove(this, doc._id);
  }

  /** Index entries of every document, checked for duplicates when the index is unique. */
  private entriesFor(index: IndexState): Array<[string, string]> {
    const entries: Array<[string, string]> = [];
    for (const [idKey, row] of this.rows) for (const key of index.keysFor(this.records.get(row), idKey)) entries.push([key, idKey]);
    if (index.unique && !index.isIdIndex) {
      entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      for (let i = 1; i < entries.length; i++) {
        const [key, idKey] = entries[i];
        const [previousKey, previousId] = entries[i - 1];
        const prefix = key.slice(0, key.length - idKey.length);
        if (previousId !== idKey && previousKey.slice(0, previousKey.length - previousId.length) === prefix) {
          throw index.duplicateError(this.ns, this.getByIdKey(idKey) as Document, key, idKey);
        }
      }
    }
    return entries;
  }

  /** Builds a new index over the existing documents; fails like mongod if they violate it. */
  addIndex(index: IndexState): void {
    index.sharePrefixesBeforeId(this.collation?.level ?? 0);
    index.load(this.entriesFor(index));
    this.indexes.push(index);
    this.planCache.clear();
    this.log?.createIndex(this, index.spec);
  }

  dropIndex(name: string): void {
    const position = this.indexes.findIndex((index) => index.spec.name === name);
    if (position < 0) return;
    const [index] = this.indexes.splice(position, 1);
    index.dropped = true;
    this.planCache.clear();
    this.log?.dropIndex(this, name);
  }

  // Recovery: documents and index definitions come back without checks or journal records;
  // `rebuildIndexes` then builds every index in bulk.

  restorePut(doc: Document): void {
    const idKey = this.idKeyOf(doc._id);
    const row = this.rows.get(idKey);
    if (row === undefined) this.rows.set(idKey, this.records.add(doc));
    else this.records.replace(row, doc);
  }

  restoreRemove(id: unknown): void {
    const idKey = this.idKeyOf(id);
    const row = this.rows.get(idKey);
    if (row === undefined) return;
    this.records.delete(row);
    this.rows.delete(idKey);
  }

  restoreIndex(index: IndexState): void {
    index.sharePrefixesBeforeId(this.collation?.level ?? 0);
    this.indexes.push(index);
  }

  restoreDropIndex(name: string): void {
    const position = this.indexes.findIndex((index) => index.spec.name === name);
    if (position >= 0) this.indexes.splice(position, 1);
  }

  /** Rebuilds every index from the documents in bulk (recovery). */
  rebuildIndexes(): void {
    this.idIndex.load([...this.rows.keys()].map((idKey) => [idKey, idKey]));
    for (const index of this.indexes) index.load(this.entriesFor(index));
  }

  /**
   * All documents in natural (insertion) order, or its reverse, decoded one at a time. Forward, the
   * walk follows changes made while it is paused (as a Map iterator does); in reverse it walks the
   * `_id`s there were when it started, each document as it is when reached.
   */
  *documents(direction: 1 | -1 = 1): Generator<Document, void, undefined> {
    if (direction === 1) {
      for (const row of this.rows.values()) yield this.records.get(row);
      return;
    }
    const idKeys = [...this.rows.keys()];
    for (let i = idKeys.length - 1; i >= 0; i--) {
      const doc = this.getByIdKey(idKeys[i]);
      if (doc) yield doc;
    }
  }

  allDocuments(): Iterable<Document> {
    return this.documents(1);
  }

  /** The documents of this instant, to be read later (checkpoints): later writes do not change them. */
  snapshot(): RecordSnapshot {
    return this.records.snapshot(this.rows.values());
  }

  /** Lets go of every document and index entry at once (the collection was dropped). */
  release(): void {
    // Cleared, not replaced: a walk paused on the collection ends instead of reading freed rows.
    this.rows.clear();
    this.records = new RecordStore();
    for (const index of this.allIndexes) index.load([]);
  }

  /** Bytes of the slabs holding the documents. */
  get recordBytes(): number {
    return this.records.slabBytes;
  }
}
