import { ObjectId, UUID } from 'bson';
import { formatDocument, type Document, type StringFold } from './bson-values';
import { foldFor, type ResolvedCollation } from './collation';
import { DuplicateKeyError } from './errors';
import { IndexState, type IndexSpec } from './index-state';
import { encodeValue } from './key-encoding';
import { PlanCache } from './plan-cache';
import type { Matcher } from './query-engine';
import { FieldSelection } from './record-codec';
import { RecordStore, type RecordSnapshot } from './record-store';

const ID_INDEX_SPEC: IndexSpec = { v: 2, key: { _id: 1 }, name: '_id_' };

function sameKeys(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((key, i) => key === b[i]);
}

/** What a plan decodes of the documents it examines (see Collection.fetchMatching). */
export interface Fetch {
  /** The top-level fields to decode of a matching document; null: all of it. */
  fields: FieldSelection | null;
  /** Kept for a write: `currentMatch` then knows whether the document changed since, without decoding it again. */
  forWrite: boolean;
}

export const WHOLE_DOCUMENTS: Fetch = { fields: null, forWrite: false };

/** A document fetched for a write: its `_id` key, the version of its record then, and what was decoded. */
interface Fetched {
  idKey: string;
  stamp: number;
  records: RecordStore;
  fields: FieldSelection | null;
}

/** The BSON of a document with `_id` (an ObjectId) added first. */
function withIdElement(bytes: Buffer, id: ObjectId): Buffer {
  const out = Buffer.allocUnsafe(bytes.length + 17);
  out.writeInt32LE(bytes.length + 17, 0);
  out[4] = 0x07;
  out.write('_id\0', 5, 'latin1');
  out.set(id.id, 9);
  bytes.copy(out, 21, 4);
  return out;
}

/** Receives every change to the stored data, in order (the journal of a durable server). */
export interface ChangeLog {
  createCollection(collection: Collection): void;
  dropCollection(db: string, name: string): void;
  dropDatabase(db: string): void;
  createIndex(collection: Collection, spec: IndexSpec): void;
  dropIndex(collection: Collection, name: string): void;
  /**
   * An inserted or replaced document (the whole new version). `raw`, when given, is that version's
   * BSON, and `doc` may then hold only the fields the indexes read (an insert encoded from the bytes).
   */
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
  /** See `indexedFields` (undefined: to compute again, the indexes changed). */
  private indexedFieldsMemo: FieldSelection | null | undefined;
  private readonly fetched = new WeakMap<Document, Fetched>();

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
   * The top-level fields every index reads of a document (its key fields and partial filter's) and
   * `_id`: what inserting or removing a document needs of it. Null when a partial filter may read
   * any field.
   */
  get indexedFields(): FieldSelection | null {
    if (this.indexedFieldsMemo !== undefined) return this.indexedFieldsMemo;
    const names = new Set<string>(['_id']);
    let whole = false;
    for (const index of this.indexes) {
      for (const field of index.fields) names.add(field.split('.')[0]);
      const partial = index.partialFilter;
      if (partial && !partial.fields) whole = true;
      else if (partial?.fields) for (const name of partial.fields.names) names.add(name);
    }
    this.indexedFieldsMemo = whole ? null : new FieldSelection(names);
    return this.indexedFieldsMemo;
  }

  /**
   * Inserts a document that already has an `_id`; throws DuplicateKeyError before changing
   * anything. `raw` is the document's BSON as received, reused by the journal when given.
   */
  insert(doc: Document, raw?: Uint8Array): void {
    this.insertRecord(doc, null, raw);
  }

  /**
   * Inserts a document received as BSON (with its `_id` first, or none: one is generated) by
   * encoding its record straight from the bytes: only the fields the indexes read are decoded, once
   * (RecordCodec.encodeBson). False, with nothing changed, when the document is not of the kind read
   * that way: the caller decodes it and calls `insert`. Throws DuplicateKeyError like `insert`.
   */
  insertBson(bytes: Buffer, hasId: boolean): boolean {
    const generatedId = hasId ? undefined : new ObjectId();
    const record = this.records.encodeBson(bytes, generatedId);
    if (!record) return false;
    const doc = this.records.recordFields(record, this.indexedFields);
    this.insertRecord(doc, record, generatedId ? withIdElement(bytes, generatedId) : bytes);
    return true;
  }

  /** `doc` holds at least the fields the indexes read; `record` is its encoding (made here when null). */
  private insertRecord(doc: Document, record: Buffer | null, raw?: Uint8Array): void {
    const idKey = this.idKeyOf(doc._id);
    if (this.rows.has(idKey)) throw this.duplicateIdError(doc._id);
    const keys: string[][] = [];
    for (const index of this.indexes) {
      const indexKeys = index.keysFor(doc, idKey);
      index.checkAvailable(this.ns, doc, indexKeys, idKey);
      keys.push(indexKeys);
    }
    this.rows.set(idKey, record ? this.records.addRecord(record) : this.records.add(doc));
    this.idIndex.add([idKey], idKey);
    for (let i = 0; i < keys.length; i++) this.indexes[i].add(keys[i], idKey);
    this.log?.put(this, doc, raw);
  }

  /**
   * The document of `idKey` if `matcher` accepts it (none: every document), as `fetch` asks for it;
   * undefined when there is no such document, null when it does not match. Only the fields the
   * matcher reads are decoded to test it, unless what is fetched holds them anyway: a document the
   * filter rejects costs those fields, not the whole document.
   */
  fetchMatching(idKey: string, matcher: Matcher | null, fetch: Fetch): Document | null | undefined {
    const row = this.rows.get(idKey);
    if (row === undefined) return undefined;
    const fields = fetch.fields;
    const reads = matcher && !matcher.isEmpty ? matcher.fields : undefined;
    let doc: Document;
    if (reads === undefined) doc = this.records.getFields(row, fields);
    else if (reads === null) {
      doc = this.records.get(row);
      if (!(matcher as Matcher).test(doc)) return null;
    } else if (fields !== null && fields.covers(reads)) {
      doc = this.records.getFields(row, fields);
      if (!(matcher as Matcher).test(doc)) return null;
    } else {
      if (!(matcher as Matcher).test(this.records.getFields(row, reads))) return null;
      doc = this.records.getFields(row, fields);
    }
    if (fetch.forWrite) this.fetched.set(doc, { idKey, stamp: this.records.stamp(row), records: this.records, fields });
    return doc;
  }

  /**
   * What a write fetches of its matches: the fields the indexes read (a removal) or all (null),
   * with those the matcher reads.
   */
  writeFetch(matcher: Matcher, fields: FieldSelection | null): Fetch {
    const reads = matcher.isEmpty ? new FieldSelection([]) : matcher.fields;
    return { fields: fields && reads ? fields.union(reads) : null, forWrite: true };
  }

  /**
   * The version of a matched document to modify now: the one fetched if its record is unchanged,
   * else its current version if that still matches (other operations may have changed it while a
   * write yielded, as mongod re-checks a document after a yield), else undefined.
   */
  currentMatch(doc: Document, matcher: Matcher): Document | undefined {
    const fetched = this.fetched.get(doc);
    if (!fetched) {
      const current = this.getById(doc._id);
      return current && matcher.test(current) ? current : undefined;
    }
    const row = this.rows.get(fetched.idKey);
    if (row === undefined) return undefined;
    if (fetched.records === this.records && this.records.stamp(row) === fetched.stamp) return doc;
    const current = this.records.getFields(row, fetched.fields);
    return matcher.test(current) ? current : undefined;
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

  /** Removes a stored document; `doc` needs only the fields the indexes read (`indexedFields`). */
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
    this.indexedFieldsMemo = undefined;
    this.planCache.clear();
    this.log?.createIndex(this, index.spec);
  }

  dropIndex(name: string): void {
    const position = this.indexes.findIndex((index) => index.spec.name === name);
    if (position < 0) return;
    const [index] = this.indexes.splice(position, 1);
    index.dropped = true;
    this.indexedFieldsMemo = undefined;
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
    this.indexedFieldsMemo = undefined;
  }

  restoreDropIndex(name: string): void {
    const position = this.indexes.findIndex((index) => index.spec.name === name);
    if (position >= 0) this.indexes.splice(position, 1);
    this.indexedFieldsMemo = undefined;
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

  /** The `_id` keys of all documents in natural order, or its reverse, as `documents` walks them. */
  *idKeys(direction: 1 | -1 = 1): Generator<string, void, undefined> {
    if (direction === 1) {
      for (const idKey of this.rows.keys()) yield idKey;
      return;
    }
    const idKeys = [...this.rows.keys()];
    for (let i = idKeys.length - 1; i >= 0; i--) yield idKeys[i];
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
