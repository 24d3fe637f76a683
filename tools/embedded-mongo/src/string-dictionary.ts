/** Longer strings are rarely repeated values (descriptions, ids): always stored in the record. */
const MAX_LENGTH = 200;
/** Strings seen once, remembered to recognise their second sighting; forgotten all at once when full. */
const MAX_CANDIDATES = 1 << 16;
/** Entries of one dictionary at most (beyond, new strings stay in their records). */
const MAX_ENTRIES = 1 << 20;

/**
 * The strings a collection's records share by number (record-codec.ts): a provider, a period, an
 * account id… each kept once, in its record as a varint. A string enters at its second sighting
 * (a value unique to one document is cheaper inline than as an entry), and only grows: it is
 * freed with its collection.
 */
export class StringDictionary {
  private readonly ids = new Map<string, number>();
  private readonly strings: string[] = [];
  private candidates = new Set<string>();

  /** The string's number, -1 when it stays in the record. */
  idOf(value: string): number {
    const id = this.ids.get(value);
    if (id !== undefined) return id;
    if (value.length > MAX_LENGTH || this.strings.length >= MAX_ENTRIES) return -1;
    if (!this.candidates.has(value)) {
      if (this.candidates.size >= MAX_CANDIDATES) this.candidates = new Set();
      this.candidates.add(value);
      return -1;
    }
    this.candidates.delete(value);
    this.ids.set(value, this.strings.length);
    this.strings.push(value);
    return this.strings.length - 1;
  }

  stringOf(id: number): string {
    return this.strings[id];
  }
}
