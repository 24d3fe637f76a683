import * as fs from 'node:fs';
import * as path from 'node:path';
import { bsonTypeOf, type Document } from '../bson-values';
import type { ChangeLog, Collection } from '../collection';
import type { IndexSpec } from '../index-state';
import { Op, RecordWriter, syncDirectory, type OpCode } from './records';
import { ObjectId, serialize } from 'bson';

/** The BSON of `{ _id: <ObjectId> }` (a removal's body), written into one reused buffer. */
const removedObjectId = Buffer.from(serialize({ _id: new ObjectId() }));

/** The body of a removal record: `{ _id: id }` (an ObjectId's without going through bson). */
export function removalBody(id: unknown): Uint8Array | Document {
  if (bsonTypeOf(id) !== 'ObjectId') return { _id: id };
  removedObjectId.set((id as ObjectId).id, 9);
  return removedObjectId;
}

export const segmentName = (sequence: number): string => `journal-${String(sequence).padStart(8, '0')}.log`;
export const SEGMENT_PATTERN = /^journal-(\d{8})\.log$/;

/** Bytes of journal records, and how many of them (and their bytes) are documents. */
export interface JournalUsage {
  bytes: number;
  documents: number;
  documentBytes: number;
}

/**
 * The append-only journal: every change becomes a record. Records reach the operating system
 * (a `write`) before the command that made them is answered, so killing the process loses no
 * acknowledged write; they reach the disk (`fdatasync`) in groups, at most `commitIntervalMs`
 * apart, as mongod's journal commit interval does. Checkpoints rotate it into a new segment.
 */
export class Journal implements ChangeLog {
  private fd: number;
  /** Records not yet handed to the operating system. */
  private readonly pending = new RecordWriter();
  /** Bytes handed to the operating system, and the part of them known to be on disk. */
  private written = 0;
  private synced = 0;
  private syncing: Promise<void> | null = null;
  private syncTimer: NodeJS.Timeout | null = null;
  private waiters: Array<{ position: number; resolve: () => void }> = [];
  /** What the segments a recovery would replay (those since the last checkpoint) hold. */
  sinceCheckpoint: JournalUsage;
  closed = false;

  constructor(
    private readonly dir: string,
    public sequence: number,
    replayed: JournalUsage,
    private readonly commitIntervalMs: number,
    private readonly onWritten: () => void,
    /** A segment is closed and the journal goes on in a new one once it holds this many bytes. */
    private readonly segmentBytes: number,
  ) {
    this.fd = this.openSegment(sequence);
    this.sinceCheckpoint = { ...replayed };
  }

  private openSegment(sequence: number): number {
    const fd = fs.openSync(path.join(this.dir, segmentName(sequence)), 'a');
    syncDirectory(this.dir);
    return fd;
  }

  private append(op: OpCode, db: string, collection: string, body: Uint8Array | Document): number {
    if (this.closed) throw new Error('the journal is closed');
    return body instanceof Uint8Array ? this.pending.add(op, db, collection, body) : this.pending.addDocument(op, db, collection, body);
  }

  /** Hands every pending record to the operating system (called before a command is answered). */
  flush(): void {
    if (this.pending.length === 0) return;
    const data = this.pending.bytes();
    let offset = 0;
    while (offset < data.length) offset += fs.writeSync(this.fd, data, offset);
    this.pending.reset();
    this.written += data.length;
    this.sinceCheckpoint.bytes += data.length;
    if (this.written >= this.segmentBytes) this.rotate();
    else this.scheduleSync();
    this.onWritten();
  }

  private scheduleSync(): void {
    if (this.syncTimer || this.closed) return;
    this.syncTimer = setTimeout(() => {
      this.syncTimer = null;
      void this.sync();
    }, this.commitIntervalMs);
    this.syncTimer.unref();
  }

  /** Resolves once everything written so far is on disk (a group commit). */
  sync(): Promise<void> {
    this.flush();
    const target = this.written;
    if (this.synced >= target) return Promise.resolve();
    const done = new Promise<void>((resolve) => this.waiters.push({ position: target, resolve }));
    if (!this.syncing) this.syncing = this.runSync();
    return done;
  }

  private async runSync(): Promise<void> {
    while (this.synced < this.written && !this.closed) {
      const target = this.written;
      const fd = this.fd;
      await new Promise<void>((resolve) => fs.fdatasync(fd, () => resolve()));
      if (fd === this.fd) this.synced = Math.max(this.synced, target);
      this.release();
    }
    this.syncing = null;
  }

  private release(): void {
    const ready = this.waiters.filter((waiter) => waiter.position <= this.synced);
    this.waiters = this.waiters.filter((waiter) => waiter.position > this.synced);
    for (const waiter of ready) waiter.resolve();
  }

  /**
   * Closes the current segment (on disk) and continues in a new one; returns the new sequence.
   * Checkpoints rotate, and so does a segment grown to `segmentBytes`.
   */
  rotate(): number {
    this.flush();
    fs.fdatasyncSync(this.fd);
    fs.closeSync(this.fd);
    this.sequence++;
    this.fd = this.openSegment(this.sequence);
    this.written = 0;
    this.synced = 0;
    this.release();
    for (const waiter of this.waiters) waiter.resolve();
    this.waiters = [];
    return this.sequence;
  }

  /** Everything on disk, then the file closed (a clean stop loses nothing acknowledged). */
  close(): void {
    if (this.closed) return;
    this.flush();
    fs.fdatasyncSync(this.fd);
    fs.closeSync(this.fd);
    this.closed = true;
    if (this.syncTimer) clearTimeout(this.syncTimer);
    for (const waiter of this.waiters) waiter.resolve();
    this.waiters = [];
  }

  createCollection(collection: Collection): void {
    this.append(Op.createCollection, collection.db, collection.name, { options: collection.options });
  }

  dropCollection(db: string, name: string): void {
    this.append(Op.dropCollection, db, name, {});
  }

  dropDatabase(db: string): void {
    this.append(Op.dropDatabase, db, '', {});
  }

  createIndex(collection: Collection, spec: IndexSpec): void {
    this.append(Op.createIndex, collection.db, collection.name, spec);
  }

  dropIndex(collection: Collection, name: string): void {
    this.append(Op.dropIndex, collection.db, collection.name, { name });
  }

  put(collection: Collection, doc: Document, raw?: Uint8Array): void {
    const bytes = this.append(Op.put, collection.db, collection.name, raw ?? serialize(doc));
    this.sinceCheckpoint.documents++;
    this.sinceCheckpoint.documentBytes += bytes;
  }

  remove(collection: Collection, id: unknown): void {
    this.append(Op.remove, collection.db, collection.name, removalBody(id));
  }
}
