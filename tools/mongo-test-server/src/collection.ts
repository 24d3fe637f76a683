import { UUID } from 'bson';
import { formatDocument, type Document, type StringFold } from './bson-values';
import type { ChangeLog } from './change-log';
import { foldFor, type ResolvedCollation } from './collation';
import { DuplicateKeyError } from './errors';
import { IndexState, type IndexSpec } from './index-state';
import { encodeValue } from './key-encoding';

const ID_INDEX_SPEC: IndexSpec = { v: 2, key: { _id: 1 }, name: '_id_' };

function sameKeys(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((key, i) => key === b[i]);
}

/**
 * Documents of one collection, in insertion order, keyed by the encoded `_id` (see
 * key-encoding.ts), plus its indexes kept in step with every write. Stored documents are never
 * mutated: updates replace them with a new object.
 */
export class Collection {
  readonly docs = new Map<string, Document>();
  readonly idIndex: IndexState;
  readonly indexes: IndexState[] = [];
  readonly uuid = new UUID();
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

  getById(id: unknown): Document | undefined {
    return this.docs.get(this.idKeyOf(id));
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
    if (this.docs.has(idKey)) throw this.duplicateIdError(doc._id);
    const keys = this.indexes.map((index) => {
      const indexKeys = index.keysFor(doc);
      index.checkAvailable(this.ns, doc, indexKeys, idKey);
      return indexKeys;
    });
    this.docs.set(idKey, doc);
    this.idIndex.add([], idKey);
    this.indexes.forEach((index, i) => index.add(keys[i], idKey));
    this.log?.put(this, doc, raw);
  }

  /** Replaces a stored document by a new version with the same `_id`. */
  replace(previous: Document, next: Document): void {
    const idKey = this.idKeyOf(previous._id);
    const changes = this.indexes.map((index) => {
      const oldKeys = index.keysFor(previous);
      const newKeys = index.keysFor(next);
      if (sameKeys(oldKeys, newKeys)) return null;
      index.checkAvailable(this.ns, next, newKeys, idKey);
      return [oldKeys, newKeys] as const;
    });
    this.indexes.forEach((index, i) => {
      const change = changes[i];
      if (!change) return;
      index.remove(change[0], idKey);
      index.add(change[1], idKey);
    });
    this.docs.set(idKey, next);
    this.log?.put(this, next);
  }

  remove(doc: Document): void {
    const idKey = this.idKeyOf(doc._id);
    for (const index of this.indexes) index.remove(index.keysFor(doc), idKey);
    this.idIndex.remove([], idKey);
    this.docs.delete(idKey);
    this.log?.remove(this, doc._id);
  }

  /** Builds a new index over the existing documents; fails like mongod if they violate it. */
  addIndex(index: IndexState): void {
    const entries: Array<[string, string]> = [];
    const owners = index.unique ? new Map<string, string>() : null;
    for (const [idKey, doc] of this.docs) {
      for (const key of index.keysFor(doc)) {
        if (owners) {
          const owner = owners.get(key);
          if (owner !== undefined && owner !== idKey) throw index.duplicateError(this.ns, doc, key);
          owners.set(key, idKey);
        }
        entries.push([key + idKey, idKey]);
      }
    }
    index.load(entries);
    this.indexes.push(index);
    this.log?.createIndex(this, index.spec);
  }

  dropIndex(name: string): void {
    const position = this.indexes.findIndex((index) => index.spec.name === name);
    if (position < 0) return;
    this.indexes.splice(position, 1);
    this.log?.dropIndex(this, name);
  }

  // Recovery: documents and index definitions come back without checks or journal records.

  restorePut(doc: Document): void {
    const idKey = this.idKeyOf(doc._id);
    const previous = this.docs.get(idKey);
    if (previous) {
      for (const index of this.indexes) index.remove(index.keysFor(previous), idKey);
    } else {
      this.idIndex.add([], idKey);
    }
    this.docs.set(idKey, doc);
    for (const index of this.indexes) index.add(index.keysFor(doc), idKey);
  }

  restoreRemove(id: unknown): void {
    const doc = this.getById(id);
    if (doc) {
      const idKey = this.idKeyOf(id);
      for (const index of this.indexes) index.remove(index.keysFor(doc), idKey);
      this.idIndex.remove([], idKey);
      this.docs.delete(idKey);
    }
  }

  /** Adds documents to the map only; `rebuildIndexes` must follow. */
  restoreDocuments(docs: Document[]): void {
    for (const doc of docs) this.docs.set(this.idKeyOf(doc._id), doc);
  }

  restoreIndex(index: IndexState): void {
    this.indexes.push(index);
  }

  /** Rebuilds every index from the documents in bulk (recovery). */
  rebuildIndexes(): void {
    this.idIndex.load([...this.docs.keys()].map((idKey) => [idKey, idKey]));
    for (const index of this.indexes) {
      const entries: Array<[string, string]> = [];
      for (const [idKey, doc] of this.docs) for (const key of index.keysFor(doc)) entries.push([key + idKey, idKey]);
      index.load(entries);
    }
  }

  /** All documents in natural (insertion) order. */
  allDocuments(): Iterable<Document> {
    return this.docs.values();
  }
}
