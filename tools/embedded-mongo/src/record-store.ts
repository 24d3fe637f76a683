import type { ObjectId } from 'bson';
import type { Document } from './bson-values';
import { RecordCodec, type FieldSelection } from './record-codec';

/** The first slab of a collection; each next one doubles, up to MAX_SLAB_BYTES. */
const FIRST_SLAB_BYTES = 64 * 1024;
/**
 * Above glibc's largest dynamic mmap threshold (32 MiB): slabs this large are their own mappings,
 * so a freed slab is memory handed back to the system, not kept in the allocator's heap.
 */
const MAX_SLAB_BYTES = 40 * 1024 * 1024;
/** A slab whose live records fill less than this share of it is emptied into the current slab. */
const COMPACT_BELOW = 0.25;
const OFFSET_SCALE = 2 ** 32;
const FREE = -1;

interface Slab {
  bytes: Buffer;
  /** Bytes of records still referenced. */
  live: number;
}

/**
 * The stored documents of one collection, in their compact encoding (record-codec.ts) packed one
 * after another into large slabs: a document costs its bytes and 12 bytes of table, not a tree of
 * JavaScript objects for the garbage collector to trace. Each record has a number (its row) that
 * stays the same across updates; `locations[row]` is slab × 2^32 + offset. A slab whose records
 * are all gone is released at once, and one mostly emptied by deletions is compacted; everything
 * goes with the store (a dropped collection).
 */
export class RecordStore {
  private readonly codec = new RecordCodec();
  private slabs: Array<Slab | null> = [];
  private current: Slab | null = null;
  private currentIndex = -1;
  private used = 0;
  private locations = new Float64Array(1024);
  private sizes = new Uint32Array(1024);
  private freeRows: number[] = [];
  private nextRow = 0;

  /** Stores a document; returns its row. */
  add(doc: Document): number {
    return this.addRecord(this.codec.encode(doc));
  }

  /**
   * The record of a document received as BSON, straight from its bytes (RecordCodec.encodeBson),
   * valid until the next encoding; null when the bytes must be decoded instead.
   */
  encodeBson(bytes: Buffer, generatedId?: ObjectId): Buffer | null {
    return this.codec.encodeBson(bytes, generatedId);
  }

  /** Selected fields of a record not yet stored (from `encodeBson`). */
  recordFields(record: Buffer, selection: FieldSelection | null): Document {
    return selection ? this.codec.decodeFields(record, 0, selection) : this.codec.decode(record, 0);
  }

  /** Stores an encoded record; returns its row. */
  addRecord(record: Buffer): number {
    const row = this.freeRows.length > 0 ? (this.freeRows.pop() as number) : this.nextRow++;
    if (row >= this.locations.length) this.grow();
    this.write(row, record);
    return row;
  }

  /** Replaces the document of `row` by a new version. */
  replace(row: number, doc: Document): void {
    this.release(row);
    this.write(row, this.codec.encode(doc));
  }

  delete(row: number): void {
    this.release(row);
    this.locations[row] = FREE;
    this.freeRows.push(row);
  }

  get(row: number): Document {
    const location = this.locations[row];
    const slab = this.slabs[Math.floor(location / OFFSET_SCALE)] as Slab;
    return this.codec.decode(slab.bytes, location % OFFSET_SCALE);
  }

  /** The selected top-level fields of the document of `row` (all of them for null). */
  getFields(row: number, selection: FieldSelection | null): Document {
    if (!selection) return this.get(row);
    const location = this.locations[row];
    const slab = this.slabs[Math.floor(location / OFFSET_SCALE)] as Slab;
    return this.codec.decodeFields(slab.bytes, location % OFFSET_SCALE, selection);
  }

  /**
   * The version of the record of `row`: it changes with every write of the row (update, delete, or a
   * compaction moving it). It is the record's place: a slab is only ever appended to and its number
   * is never given to another slab, so no place holds two records in turn.
   */
  stamp(row: number): number {
    return this.locations[row];
  }

  /**
   * The records of `rows`, in that order, as they are now. Slabs are only ever appended to, so the
   * snapshot holds the slabs and the locations: no record is copied.
   */
  snapshot(rows: Iterable<number>): RecordSnapshot {
    const locations = Float64Array.from(rows, (row) => this.locations[row]);
    return new RecordSnapshot(
      this.codec,
      this.slabs.map((slab) => slab?.bytes ?? null),
      locations,
    );
  }

  /** Bytes held by slabs (the records, their garbage and the free end of the current slab). */
  get slabBytes(): number {
    let total = 0;
    for (const slab of this.slabs) total += slab?.bytes.length ?? 0;
    return total;
  }

  private write(row: number, record: Buffer): void {
    if (!this.current || this.used + record.length > this.current.bytes.length) this.newSlab(record.length);
    const slab = this.current as Slab;
    record.copy(slab.bytes, this.used);
    this.locations[row] = this.currentIndex * OFFSET_SCALE + this.used;
    this.sizes[row] = record.length;
    this.used += record.length;
    slab.live += record.length;
  }

  private release(row: number): void {
    const index = Math.floor(this.locations[row] / OFFSET_SCALE);
    const slab = this.slabs[index] as Slab;
    slab.live -= this.sizes[row];
    if (slab === this.current) return;
    if (slab.live === 0) this.slabs[index] = null;
    else if (slab.live < COMPACT_BELOW * slab.bytes.length) this.compact(index);
  }

  private newSlab(atLeast: number): void {
    const previous = this.current?.bytes.length ?? FIRST_SLAB_BYTES / 2;
    const size = Math.max(atLeast, Math.min(MAX_SLAB_BYTES, 2 * previous));
    // Slow: outside Node's pool, so that a slab is freed on its own.
    this.current = { bytes: Buffer.allocUnsafeSlow(size), live: 0 };
    // A new number (never a freed slab's): a record's place then names one version only (`stamp`).
    this.currentIndex = this.slabs.length;
    this.slabs.push(this.current);
    this.used = 0;
  }

  /** Moves the live records of a mostly empty slab into the current one, then lets the slab go. */
  private compact(index: number): void {
    const slab = this.slabs[index] as Slab;
    for (let row = 0; row < this.nextRow; row++) {
      const location = this.locations[row];
      if (location === FREE || Math.floor(location / OFFSET_SCALE) !== index) continue;
      const start = location % OFFSET_SCALE;
      this.write(row, slab.bytes.subarray(start, start + this.sizes[row]));
    }
    this.slabs[index] = null;
  }

  private grow(): void {
    const locations = new Float64Array(this.locations.length * 2);
    locations.set(this.locations);
    this.locations = locations;
    const sizes = new Uint32Array(this.sizes.length * 2);
    sizes.set(this.sizes);
    this.sizes = sizes;
  }
}

/** Stored documents of one instant (see RecordStore.snapshot). */
export class RecordSnapshot {
  constructor(
    private readonly codec: RecordCodec,
    private readonly slabs: Array<Buffer | null>,
    private readonly locations: Float64Array,
  ) {}

  get length(): number {
    return this.locations.length;
  }

  document(position: number): Document {
    const location = this.locations[position];
    return this.codec.decode(this.slabs[Math.floor(location / OFFSET_SCALE)] as Buffer, location % OFFSET_SCALE);
  }
}
