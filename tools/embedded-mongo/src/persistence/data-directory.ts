import * as fs from 'node:fs';
import * as path from 'node:path';
import { resolveCollation } from '../collation';
import type { Collection } from '../collection';
import { IndexState, type IndexSpec } from '../index-state';
import { compileFilter } from '../query-engine';
import type { Storage } from '../storage';
import type { Document } from '../bson-values';
import { CHECKPOINT_PATTERN, checkpointName, takeSnapshot, writeCheckpoint } from './checkpoint';
import { DirectoryLock } from './directory-lock';
import { Journal, SEGMENT_PATTERN, type JournalUsage } from './journal';
import { Op, readRecords, type JournalRecord } from './records';

export interface DataDirectoryOptions {
  /** Longest time between two group commits (fdatasync) of the journal; mongod's default is 100 ms. */
  commitIntervalMs?: number;
  /**
   * A checkpoint is taken once the files (last checkpoint + journal since) exceed both this and
   * twice the estimated size of the live documents: only when they hold as much garbage (replaced
   * or deleted documents) as data. A load that only inserts never needs one.
   */
  checkpointMinBytes?: number;
  /** A journal segment is closed and a new one started once it holds this many bytes (64 MiB). */
  journalSegmentBytes?: number;
  log?: (line: string) => void;
}

function numbered(dir: string, pattern: RegExp): Array<{ sequence: number; file: string }> {
  return fs
    .readdirSync(dir)
    .map((name) => ({ match: pattern.exec(name), name }))
    .filter((entry): entry is { match: RegExpExecArray; name: string } => entry.match !== null)
    .map(({ match, name }) => ({ sequence: Number(match[1]), file: path.join(dir, name) }))
    .sort((a, b) => a.sequence - b.sequence);
}

function indexFrom(spec: IndexSpec, collection: Collection): IndexState {
  const collation = resolveCollation(spec.collation) ?? collection.collation;
  const partial = spec.partialFilterExpression ? compileFilter(spec.partialFilterExpression, { collation }) : null;
  return new IndexState(spec, collation, partial);
}

const formatCount = (n: number): string => n.toLocaleString('en-US');

/**
 * A data directory: the last checkpoint (every collection, its indexes and documents) plus the
 * journal segments written since. Opening it recovers the data (checkpoint, then journal replay,
 * then every index rebuilt); afterwards every change goes to the journal, and checkpoints are
 * taken in the background so that the files stay proportional to the live data.
 */
export class DataDirectory {
  private journal: Journal | null = null;
  /** Size of the last checkpoint, and the documents it holds with their bytes. */
  private lastCheckpoint = { bytes: 0, documents: 0, documentBytes: 0 };
  private checkpointRunning: Promise<void> | null = null;
  private closing = false;
  private readonly commitIntervalMs: number;
  private readonly checkpointMinBytes: number;
  private readonly journalSegmentBytes: number;
  private readonly log: (line: string) => void;
  private readonly lock: DirectoryLock;

  constructor(
    readonly dir: string,
    private readonly storage: Storage,
    options: DataDirectoryOptions = {},
  ) {
    this.commitIntervalMs = options.commitIntervalMs ?? 100;
    this.checkpointMinBytes = options.checkpointMinBytes ?? 64 * 1024 * 1024;
    this.journalSegmentBytes = options.journalSegmentBytes ?? 64 * 1024 * 1024;
    this.log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
    this.lock = new DirectoryLock(dir);
  }

  /** Locks the directory, recovers its data into the storage and starts journaling. */
  open(): void {
    fs.mkdirSync(this.dir, { recursive: true });
    this.lock.acquire(this.dir, this.log);
    for (const name of fs.readdirSync(this.dir)) if (name.endsWith('.tmp')) fs.rmSync(path.join(this.dir, name), { force: true });
    const started = performance.now();
    const checkpoints = numbered(this.dir, CHECKPOINT_PATTERN);
    const checkpoint = checkpoints[checkpoints.length - 1];
    if (checkpoint) {
      this.lastCheckpoint = this.loadCheckpoint(checkpoint.file);
      this.lastCheckpoint.bytes = fs.statSync(checkpoint.file).size;
    }
    const documents = this.lastCheckpoint.documents;
    const from = checkpoint?.sequence ?? 0;
    const segments = numbered(this.dir, SEGMENT_PATTERN).filter((segment) => segment.sequence >= from);
    const { records, usage } = this.replay(segments);
    for (const collection of this.storage.allCollections()) collection.rebuildIndexes();
    const next = Math.max(from, ...segments.map((segment) => segment.sequence)) + 1;
    this.storage.attachChangeLog(null);
    this.journal = new Journal(this.dir, next, usage, this.commitIntervalMs, () => this.maybeCheckpoint(), this.journalSegmentBytes);
    this.storage.attachChangeLog(this.journal);
    const collections = this.storage.allCollections();
    const total = collections.reduce((sum, collection) => sum + collection.size, 0);
    if (checkpoint || segments.length > 0) {
      this.log(
        `embedded-mongo: recovered ${formatCount(total)} documents in ${collections.length} ` +
          `collections from ${this.dir} in ${((performance.now() - started) / 1000).toFixed(1)} s ` +
          `(checkpoint ${checkpoint ? `${formatCount(documents)} documents` : 'none'}, ` +
          `${segments.length} journal segments, ${formatCount(records)} records replayed)`,
      );
    }
    this.maybeCheckpoint();
  }

  private loadCheckpoint(file: string): { bytes: number; documents: number; documentBytes: number } {
    let ended = false;
    const loaded = { bytes: 0, documents: 0, documentBytes: 0 };
    const result = readRecords(file, (record) => {
      if (record.op === Op.checkpointEnd) ended = true;
      else {
        if (record.op === Op.put) {
          loaded.documents++;
          loaded.documentBytes += record.bytes;
        }
        this.apply(record);
      }
    });
    if (result.damage || !ended) {
      // Checkpoints are written to a temporary file and renamed once complete: this is damage on disk.
      throw new Error(
        `the checkpoint ${file} is damaged (${result.damage ?? 'it has no end record'} ` +
          `at byte ${result.validBytes} of ${result.totalBytes}); ` +
          'move it away to start from the journal alone, or restore the directory from a backup',
      );
    }
    return loaded;
  }

  /** Replays journal segments in order; a torn or corrupt record ends the replay, and the rest is set aside. */
  private replay(segments: Array<{ sequence: number; file: string }>): { records: number; usage: JournalUsage } {
    let records = 0;
    const usage: JournalUsage = { bytes: 0, documents: 0, documentBytes: 0 };
    for (const [i, segment] of segments.entries()) {
      const result = readRecords(segment.file, (record) => {
        if (record.op === Op.put) {
          usage.documents++;
          usage.documentBytes += record.bytes;
        }
        this.apply(record);
      });
      records += result.records;
      usage.bytes += result.validBytes;
      if (!result.damage) continue;
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      const discarded = `${segment.file}.discarded-${stamp}`;
      const fd = fs.openSync(segment.file, 'r+');
      try {
        const tail = Buffer.alloc(result.totalBytes - result.validBytes);
        fs.readSync(fd, tail, 0, tail.length, result.validBytes);
        fs.writeFileSync(discarded, tail);
        fs.ftruncateSync(fd, result.validBytes);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      const later = segments.slice(i + 1);
      for (const other of later) fs.renameSync(other.file, `${other.file}.discarded-${stamp}`);
      this.log(
        `embedded-mongo: journal ${path.basename(segment.file)}: ${result.damage} at byte ${result.validBytes} of ${result.totalBytes}; ` +
          `recovered up to the last whole record (${formatCount(result.records)} records of this segment), ` +
          `the remaining ${formatCount(result.totalBytes - result.validBytes)} bytes were set aside in ${path.basename(discarded)}` +
          (later.length > 0 ? ` and ${later.length} later segments were set aside` : ''),
      );
      break;
    }
    return { records, usage };
  }

  /** Applies one record during recovery (indexes are rebuilt once all records are in). */
  private apply(record: JournalRecord): void {
    const { db, collection: name, body } = record;
    const existing = this.storage.getCollection(db, name);
    switch (record.op) {
      case Op.createCollection: {
        if (existing) return;
        const options = (body.options ?? {}) as Document;
        this.storage.createCollection(db, name, options, resolveCollation(options.collation));
        return;
      }
      case Op.dropCollection:
        this.storage.dropCollection(db, name);
        return;
      case Op.dropDatabase:
        this.storage.dropDatabase(db);
        return;
      case Op.createIndex: {
        const collection = existing ?? this.storage.createCollection(db, name);
        const spec = body as IndexSpec;
        if (collection.indexes.some((index) => index.spec.name === spec.name)) return;
        collection.restoreIndex(indexFrom(spec, collection));
        return;
      }
      case Op.dropIndex:
        existing?.restoreDropIndex(String(body.name));
        return;
      case Op.put:
        (existing ?? this.storage.createCollection(db, name)).restorePut(body);
        return;
      case Op.remove:
        existing?.restoreRemove(body._id);
        return;
      default:
        return;
    }
  }

  /**
   * Called after each journal write: starts a checkpoint once the files hold as much garbage as
   * live data. The live size is estimated as the live documents times the mean size of a
   * document record in the files; the garbage is everything else (older versions of updated
   * documents, deleted ones). Inserts alone add data, not garbage, and never call for one.
   */
  private maybeCheckpoint(): void {
    const journal = this.journal;
    if (!journal || this.checkpointRunning || this.closing) return;
    const since = journal.sinceCheckpoint;
    const onDisk = this.lastCheckpoint.bytes + since.bytes;
    if (onDisk < this.checkpointMinBytes) return;
    const records = this.lastCheckpoint.documents + since.documents;
    const meanRecordBytes = records === 0 ? 0 : (this.lastCheckpoint.documentBytes + since.documentBytes) / records;
    const liveDocuments = this.storage.allCollections().reduce((sum, collection) => sum + collection.size, 0);
    if (onDisk <= 2 * liveDocuments * meanRecordBytes) return;
    this.startCheckpoint();
  }

  private startCheckpoint(): Promise<void> {
    // Started on the next microtask, once marked as running: its own journal flush calls maybeCheckpoint.
    const running = Promise.resolve()
      .then(() => this.writeCheckpointNow())
      .finally(() => {
        if (this.checkpointRunning === running) this.checkpointRunning = null;
      });
    this.checkpointRunning = running;
    return running;
  }

  /** Writes a checkpoint now, once any checkpoint already being written is done. */
  async checkpoint(): Promise<void> {
    while (this.checkpointRunning) await this.checkpointRunning;
    if (this.closing) return;
    await this.startCheckpoint();
  }

  /** Writes a checkpoint of the current data, then drops the journal segments and checkpoint it replaces. */
  private async writeCheckpointNow(): Promise<void> {
    const journal = this.journal;
    if (!journal) return;
    const started = performance.now();
    const sequence = journal.rotate();
    journal.sinceCheckpoint = { bytes: 0, documents: 0, documentBytes: 0 };
    const snapshot = takeSnapshot(this.storage);
    try {
      const written = await writeCheckpoint(this.dir, sequence, snapshot, () => this.closing);
      if (!written) return;
      this.lastCheckpoint = { bytes: written.bytes, documents: written.documents, documentBytes: written.documentBytes };
      for (const old of numbered(this.dir, CHECKPOINT_PATTERN)) if (old.sequence < sequence) fs.rmSync(old.file, { force: true });
      for (const old of numbered(this.dir, SEGMENT_PATTERN)) if (old.sequence < sequence) fs.rmSync(old.file, { force: true });
      this.log(
        `embedded-mongo: checkpoint ${checkpointName(sequence)} written (${formatCount(written.documents)} documents, ` +
          `${(written.bytes / 1024 / 1024).toFixed(1)} MiB) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
    } catch (error) {
      this.log(`embedded-mongo: checkpoint ${checkpointName(sequence)} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Hands pending records to the operating system before a command's reply goes out. */
  flush(): void {
    this.journal?.flush();
  }

  /** Resolves once every write so far is on disk (write concern `j: true`). */
  sync(): Promise<void> {
    return this.journal?.sync() ?? Promise.resolve();
  }

  /** Stops checkpointing, puts the journal on disk and releases the directory. */
  async close(): Promise<void> {
    this.closing = true;
    await this.checkpointRunning;
    this.journal?.close();
    this.storage.attachChangeLog(null);
    this.lock.release();
  }

  /** Files of the directory (for tests and status). */
  files(): string[] {
    return fs.readdirSync(this.dir).sort();
  }
}
