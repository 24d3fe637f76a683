import { isPlainObject, type Document } from './bson-values';

/** Longer strings are rarely repeated values (descriptions, ids): not pooled. */
const MAX_POOLED_LENGTH = 64;
/** Distinct strings kept; the pool starts over when full (strings already shared stay shared). */
const MAX_POOLED_STRINGS = 100_000;
/** Sub-documents and arrays deeper than this are left as they are. */
const MAX_DEPTH = 4;

/**
 * Stored documents share one copy of each short string value they repeat (a provider, a
 * period, an account id...): decoding gives every document its own copies, which would live as
 * long as the document. A million documents with ~15 such values each are millions of objects
 * fewer for the garbage collector to copy out of the young generation and to trace at every
 * full collection; the copies made by decoding die young, which costs almost nothing.
 * Strings are immutable, so sharing them cannot be observed.
 */
export class StringPool {
  private strings = new Map<string, string>();

  private intern(value: string): string {
    if (value.length > MAX_POOLED_LENGTH) return value;
    const pooled = this.strings.get(value);
    if (pooled !== undefined) return pooled;
    if (this.strings.size >= MAX_POOLED_STRINGS) this.strings = new Map();
    this.strings.set(value, value);
    return value;
  }

  /** Replaces the string values of a document about to be stored (not yet shared) by pooled ones. */
  share(doc: Document): void {
    this.shareIn(doc, 0);
  }

  private shareIn(container: Document | unknown[], depth: number): void {
    if (Array.isArray(container)) {
      for (let i = 0; i < container.length; i++) {
        const value = container[i];
        if (typeof value === 'string') container[i] = this.intern(value);
        else if (depth < MAX_DEPTH && typeof value === 'object' && value !== null && (Array.isArray(value) || isPlainObject(value)))
          this.shareIn(value, depth + 1);
      }
      return;
    }
    for (const key in container) {
      const value = container[key];
      if (typeof value === 'string') container[key] = this.intern(value);
      else if (depth < MAX_DEPTH && typeof value === 'object' && value !== null && (Array.isArray(value) || isPlainObject(value)))
        this.shareIn(value as Document, depth + 1);
    }
  }
}
