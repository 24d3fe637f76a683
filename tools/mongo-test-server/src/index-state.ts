import { canonicalKey, formatDocument, type Document, type StringFold } from './bson-values';
import { foldFor, type FoldLevel, type ResolvedCollation } from './collation';
import { indexValues } from './document-paths';
import { commandError, DuplicateKeyError } from './errors';
import type { Matcher } from './query-engine';

/** An index as listIndexes reports it. */
export interface IndexSpec extends Document {
  v: number;
  key: Document;
  name: string;
}

const KEY_SEPARATOR = '\u0000';

/** One index; unique indexes keep a map from canonical key to the owning document's `_id` key. */
export class IndexState {
  readonly fields: string[];
  readonly level: FoldLevel;
  readonly fold: StringFold;
  readonly unique: boolean;
  readonly sparse: boolean;
  /** canonical index key -> canonical `_id` key of the document holding it (unique indexes only). */
  readonly entries = new Map<string, string>();

  constructor(
    readonly spec: IndexSpec,
    readonly collation: ResolvedCollation | null,
    readonly partialFilter: Matcher | null,
  ) {
    this.fields = Object.keys(spec.key);
    this.level = collation?.level ?? 0;
    this.fold = foldFor(this.level);
    this.unique = spec.unique === true;
    this.sparse = spec.sparse === true;
  }

  /** Index keys of a document, each with the field values it was built from; empty if not indexed. */
  keysFor(doc: Document): Map<string, unknown[]> {
    const keys = new Map<string, unknown[]>();
    if (this.partialFilter && !this.partialFilter.test(doc)) return keys;
    const perField = this.fields.map((field) => indexValues(doc, field));
    if (this.sparse && perField.every(({ values }) => values.every((value) => value === undefined))) return keys;
    const arrayFields = this.fields.filter((_, i) => perField[i].isArray);
    if (arrayFields.length > 1) {
      throw commandError('CannotIndexParallelArrays', `cannot index parallel arrays [${arrayFields[1]}] [${arrayFields[0]}]`);
    }
    let tuples: unknown[][] = [[]];
    for (const { values } of perField) {
      tuples = tuples.flatMap((prefix) => values.map((value) => [...prefix, value]));
    }
    for (const tuple of tuples) {
      keys.set(tuple.map((value) => canonicalKey(value, this.fold)).join(KEY_SEPARATOR), tuple);
    }
    return keys;
  }

  duplicateError(ns: string, tuple: unknown[]): DuplicateKeyError {
    const keyValue: Document = {};
    this.fields.forEach((field, i) => (keyValue[field] = tuple[i] === undefined ? null : tuple[i]));
    const collationNote = this.collation ? ` collation: ${formatDocument(this.collation.spec)}` : '';
    return new DuplicateKeyError(
      `E11000 duplicate key error collection: ${ns} index: ${this.spec.name}${collationNote} dup key: ${formatDocument(keyValue)}`,
      { ...this.spec.key },
      keyValue,
    );
  }

  /** Throws a duplicate key error if another document already holds one of `keys`. */
  checkAvailable(ns: string, keys: Map<string, unknown[]>, ownIdKey: string): void {
    for (const [key, tuple] of keys) {
      const owner = this.entries.get(key);
      if (owner !== undefined && owner !== ownIdKey) throw this.duplicateError(ns, tuple);
    }
  }

  add(keys: Map<string, unknown[]>, idKey: string): void {
    for (const key of keys.keys()) this.entries.set(key, idKey);
  }

  remove(keys: Map<string, unknown[]>, idKey: string): void {
    for (const key of keys.keys()) if (this.entries.get(key) === idKey) this.entries.delete(key);
  }

  /** Canonical key of a single-field equality lookup, when this index can answer it. */
  lookupKey(value: unknown): string {
    return canonicalKey(value, this.fold);
  }
}
