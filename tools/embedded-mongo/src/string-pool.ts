import { isPlainObject, type Document } from './bson-values';

/** Longer strings are rarely repeated values (descriptions, ids): not pooled. */
const MAX_POOLED_LENGTH = 64;
/** Slots of the hash table (a power of two); it starts over once half of them are taken. */
const SLOTS = 1 << 18;
const MASK = SLOTS - 1;
/** Sub-documents and arrays deeper than this are left as they are by `share`. */
const MAX_DEPTH = 4;
const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;

/**
 * Stored documents share one copy of each short string value they repeat (a provider, a
 * period, an account id...): decoding gives every document its own copies, which would live as
 * long as the document. A million documents with ~15 such values each are millions of objects
 * fewer for the garbage collector to copy out of the young generation and to trace at every
 * full collection. Strings are immutable, so sharing them cannot be observed.
 *
 * An open-addressing table keyed by an FNV-1a hash of the characters, so that a string can be
 * found from the bytes it is decoded from (`fromAscii`), without making it first.
 */
export class StringPool {
  private hashes = new Int32Array(SLOTS);
  private strings: Array<string | undefined> = new Array<string | undefined>(SLOTS);
  private count = 0;

  /** The pooled string of the ASCII bytes [start, end); null when one is not ASCII or they are too many. */
  fromAscii(bytes: Buffer, start: number, end: number): string | null {
    const length = end - start;
    if (length > MAX_POOLED_LENGTH) return null;
    let hash = FNV_OFFSET;
    for (let i = start; i < end; i++) {
      const byte = bytes[i];
      if (byte > 0x7f) return null;
      hash = Math.imul(hash ^ byte, FNV_PRIME);
    }
    let slot = hash & MASK;
    for (let found = this.strings[slot]; found !== undefined; found = this.strings[slot]) {
      if (this.hashes[slot] === hash && found.length === length && sameChars(found, bytes, start)) return found;
      slot = (slot + 1) & MASK;
    }
    return this.add(slot, hash, bytes.toString('latin1', start, end));
  }

  /** The pooled copy of `value` (itself, once pooled). */
  intern(value: string): string {
    if (value.length > MAX_POOLED_LENGTH) return value;
    let hash = FNV_OFFSET;
    for (let i = 0; i < value.length; i++) hash = Math.imul(hash ^ value.charCodeAt(i), FNV_PRIME);
    let slot = hash & MASK;
    for (let found = this.strings[slot]; found !== undefined; found = this.strings[slot]) {
      if (this.hashes[slot] === hash && found === value) return found;
      slot = (slot + 1) & MASK;
    }
    return this.add(slot, hash, value);
  }

  private add(slot: number, hash: number, value: string): string {
    if (this.count >= SLOTS / 2) {
      // Full: start over (strings already shared stay shared).
      this.hashes = new Int32Array(SLOTS);
      this.strings = new Array<string | undefined>(SLOTS);
      this.count = 0;
      slot = hash & MASK;
    }
    this.hashes[slot] = hash;
    this.strings[slot] = value;
    this.count++;
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
        else if (depth < MAX_DEPTH && isContainer(value)) this.shareIn(value, depth + 1);
      }
      return;
    }
    for (const key in container) {
      const value = container[key];
      if (typeof value === 'string') container[key] = this.intern(value);
      else if (depth < MAX_DEPTH && isContainer(value)) this.shareIn(value, depth + 1);
    }
  }
}

function isContainer(value: unknown): value is Document | unknown[] {
  return typeof value === 'object' && value !== null && (Array.isArray(value) || isPlainObject(value));
}

function sameChars(value: string, bytes: Buffer, start: number): boolean {
  for (let i = 0; i < value.length; i++) if (value.charCodeAt(i) !== bytes[start + i]) return false;
  return true;
}

/** The pool of every stored document of the process: values repeat across collections too. */
export const storedStrings = new StringPool();
