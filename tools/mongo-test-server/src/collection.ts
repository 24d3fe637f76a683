import { UUID } from 'bson';
import { bsonTypeOf, canonicalKey, formatDocument, isPlainObject, type Document, type StringFold } from './bson-values';
import { foldFor, type ResolvedCollation } from './collation';
import { DuplicateKeyError } from './errors';
import { IndexState, type IndexSpec } from './index-state';

const ID_INDEX_SPEC: IndexSpec = { v: 2, key: { _id: 1 }, name: '_id_' };

/** A value usable for an O(1) equality lookup (not an operator object, regex, array or null). */
function isLookupValue(value: unknown): boolean {
  if (value === null || value === undefined || value instanceof RegExp || Array.isArray(value)) return false;
  if (isPlainObject(value)) return !Object.keys(value).some((key) => key.startsWith('$'));
  return typeof value !== 'object' || value instanceof Date || bsonTypeOf(value) !== undefined;
}

function containsString(value: unknown): boolean {
  if (typeof value === 'string') return true;
  return isPlainObject(value) && Object.values(value).some(containsString);
}

/** Values an equality / `$eq` / `$in` condition on one field asks for, or null if it is not one. */
function lookupValues(condition: unknown): unknown[] | null {
  if (isPlainObject(condition) && Object.keys(condition).length === 1) {
    if ('$eq' in condition) return isLookupValue(condition.$eq) ? [condition.$eq] : null;
    if ('$in' in condition) {
      const list = condition.$in;
      return Array.isArray(list) && list.every(isLookupValue) ? list : null;
    }
  }
  return isLookupValue(condition) ? [condition] : null;
}

/**
 * Documents of one collection, in insertion order, keyed by the canonical form of `_id`.
 * Stored documents are never mutated: updates replace them with a new object.
 */
export class Collection {
  readonly docs = new Map<string, Document>();
  readonly indexes: IndexState[] = [];
  readonly uuid = new UUID();
  private readonly idFold: StringFold;

  constructor(
    readonly db: string,
    readonly name: string,
    readonly options: Document,
    readonly collation: ResolvedCollation | null,
  ) {
    this.idFold = foldFor(collation?.level ?? 0);
  }

  get ns(): string {
    return `${this.db}.${this.name}`;
  }

  get idIndexSpec(): IndexSpec {
    return this.collation ? { ...ID_INDEX_SPEC, collation: this.collation.spec } : ID_INDEX_SPEC;
  }

  idKeyOf(id: unknown): string {
    return canonicalKey(id, this.idFold);
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

  /** Inserts a document that already has an `_id`; throws DuplicateKeyError before changing anything. */
  insert(doc: Document): void {
    const idKey = this.idKeyOf(doc._id);
    if (this.docs.has(idKey)) throw this.duplicateIdError(doc._id);
    const uniqueKeys = this.indexes
      .filter((index) => index.unique)
      .map((index) => {
        const keys = index.keysFor(doc);
        index.checkAvailable(this.ns, keys, idKey);
        return [index, keys] as const;
      });
    this.docs.set(idKey, doc);
    for (const [index, keys] of uniqueKeys) index.add(keys, idKey);
  }

  /** Replaces a stored document by a new version with the same `_id`. */
  replace(previous: Document, next: Document): void {
    const idKey = this.idKeyOf(previous._id);
    const changes = this.indexes
      .filter((index) => index.unique)
      .map((index) => {
        const oldKeys = index.keysFor(previous);
        const newKeys = index.keysFor(next);
        index.checkAvailable(this.ns, newKeys, idKey);
        return [index, oldKeys, newKeys] as const;
      });
    for (const [index, oldKeys, newKeys] of changes) {
      index.remove(oldKeys, idKey);
      index.add(newKeys, idKey);
    }
    this.docs.set(idKey, next);
  }

  remove(doc: Document): void {
    const idKey = this.idKeyOf(doc._id);
    for (const index of this.indexes) if (index.unique) index.remove(index.keysFor(doc), idKey);
    this.docs.delete(idKey);
  }

  /** Builds a new index over the existing documents; fails like mongod if they violate it. */
  addIndex(index: IndexState): void {
    if (index.unique) {
      for (const [idKey, doc] of this.docs) {
        const keys = index.keysFor(doc);
        index.checkAvailable(this.ns, keys, idKey);
        index.add(keys, idKey);
      }
    } else {
      for (const doc of this.docs.values()) index.keysFor(doc);
    }
    this.indexes.push(index);
  }

  dropIndex(name: string): void {
    const position = this.indexes.findIndex((index) => index.spec.name === name);
    if (position >= 0) this.indexes.splice(position, 1);
  }

  /**
   * Candidate documents for a filter that pins `_id` or a single-field unique index by
   * equality (or `$in`), found in O(1) per value; null when the filter needs a scan.
   * The caller still tests every candidate against the whole filter.
   */
  lookupCandidates(filter: Document, level: number): Document[] | null {
    const idValues = '_id' in filter ? lookupValues(filter._id) : null;
    if (idValues && (level === (this.collation?.level ?? 0) || !idValues.some(containsString))) {
      return this.collect(idValues.map((value) => this.idKeyOf(value)));
    }
    for (const index of this.indexes) {
      if (!index.unique || index.partialFilter || index.fields.length !== 1) continue;
      const field = index.fields[0];
      if (!(field in filter)) continue;
      const values = lookupValues(filter[field]);
      if (!values || (index.level !== level && values.some(containsString))) continue;
      const idKeys: string[] = [];
      for (const value of values) {
        const owner = index.entries.get(index.lookupKey(value));
        if (owner !== undefined) idKeys.push(owner);
      }
      return this.collect(idKeys);
    }
    return null;
  }

  private collect(idKeys: string[]): Document[] {
    const seen = new Set<string>();
    const out: Document[] = [];
    for (const idKey of idKeys) {
      if (seen.has(idKey)) continue;
      seen.add(idKey);
      const doc = this.docs.get(idKey);
      if (doc) out.push(doc);
    }
    return out;
  }

  /** All documents in natural (insertion) order. */
  allDocuments(): Iterable<Document> {
    return this.docs.values();
  }
}
