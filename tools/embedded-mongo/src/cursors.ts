import { Long, serialize } from 'bson';
import type { Document } from './bson-values';
import { commandError } from './errors';
import { releaseDroppedMemory } from './memory-release';
import type { Operation } from './operation';
import { EncodedReply } from './wire-protocol';

/** mongod caps a batch at 16 MiB of documents; the first batch of find/aggregate at 101 documents. */
// Slightly under 16 MiB so a full batch plus the reply envelope stays under the message limit.
const MAX_BATCH_BYTES = 16_000_000;
export const DEFAULT_FIRST_BATCH_SIZE = 101;
/** mongod's clientCursorMonitorFrequencySecs: how often idle cursors are looked for. */
const MONITOR_PERIOD_MS = 4_000;
/** What a result document is taken to hold in memory, when a closed cursor lets go of its results. */
const RESULT_DOCUMENT_BYTES = 512;
/** Results from which a closed cursor's are worth collecting soon (smaller ones are left to V8). */
const LARGE_RESULTS = 10_000;

interface OpenCursor {
  id: Long;
  ns: string;
  results: Document[];
  position: number;
  /** The connection that last used the cursor (its disconnection frees the cursor). */
  connectionId: number;
  /** Date.now() of the last use (cursorTimeoutMillis counts from there). */
  lastUsed: number;
  noTimeout: boolean;
  /** Time left of the opening command's maxTimeMS (0: no limit), spent by each getMore. */
  leftoverMs: number;
  /** A getMore is filling a batch from it. */
  inUse: boolean;
}

export interface CursorOptions {
  batchSize?: number;
  singleBatch?: boolean;
  /** find's `noCursorTimeout`: the cursor never times out. */
  noTimeout?: boolean;
}

const cstring = (text: string): Buffer => Buffer.from(`${text}\0`, 'utf8');

/**
 * `{cursor: {firstBatch|nextBatch: [...], id, ns}, ok: 1}` assembled from documents already
 * encoded one by one, in mongod's field order.
 */
function encodeCursorReply(batchField: 'firstBatch' | 'nextBatch', docs: Uint8Array[], id: Long, ns: string): EncodedReply {
  const names = docs.map((_, i) => cstring(String(i)));
  const arraySize = 4 + docs.reduce((sum, doc, i) => sum + 1 + names[i].length + doc.length, 0) + 1;
  const batchName = cstring(batchField);
  const nsBytes = Buffer.from(ns, 'utf8');
  const cursorSize = 4 + (1 + batchName.length + arraySize) + (1 + 3 + 8) + (1 + 3 + 4 + nsBytes.length + 1) + 1;
  const total = 4 + (1 + 7 + cursorSize) + (1 + 3 + 8) + 1;
  const out = Buffer.allocUnsafe(total);
  let at = out.writeInt32LE(total, 0);
  at = out.writeUInt8(0x03, at);
  at += out.write('cursor\0', at, 'latin1');
  at = out.writeInt32LE(cursorSize, at);
  at = out.writeUInt8(0x04, at);
  at += batchName.copy(out, at);
  at = out.writeInt32LE(arraySize, at);
  docs.forEach((doc, i) => {
    at = out.writeUInt8(0x03, at);
    at += names[i].copy(out, at);
    out.set(doc, at);
    at += doc.length;
  });
  at = out.writeUInt8(0, at);
  at = out.writeUInt8(0x12, at);
  at += out.write('id\0', at, 'latin1');
  at = out.writeInt32LE(id.low, at);
  at = out.writeInt32LE(id.high, at);
  at = out.writeUInt8(0x02, at);
  at += out.write('ns\0', at, 'latin1');
  at = out.writeInt32LE(nsBytes.length + 1, at);
  at += nsBytes.copy(out, at);
  at = out.writeUInt8(0, at);
  at = out.writeUInt8(0, at);
  at = out.writeUInt8(0x01, at);
  at += out.write('ok\0', at, 'latin1');
  at = out.writeDoubleLE(1, at);
  out.writeUInt8(0, at);
  return new EncodedReply(out);
}

/**
 * Server-wide registry of open cursors. Result sets are materialised when the cursor opens (a
 * snapshot of immutable documents); batches are encoded a document at a time, yielding between
 * slices. Idle cursors are closed after `cursorTimeoutMillis` (mongod's default 10 minutes), and
 * the cursors a connection last used are closed when it disconnects.
 */
export class CursorRegistry {
  private readonly open = new Map<string, OpenCursor>();
  private nextId = 1n;
  private monitor: NodeJS.Timeout | null = null;

  constructor(private readonly timeoutMs: () => number) {}

  /** Encodes the first batch; registers a cursor only if results remain. */
  async openCursor(op: Operation, ns: string, results: Document[], options: CursorOptions = {}): Promise<EncodedReply> {
    const cursor: OpenCursor = {
      id: Long.ZERO,
      ns,
      results,
      position: 0,
      connectionId: op.connectionId,
      lastUsed: Date.now(),
      noTimeout: options.noTimeout === true,
      leftoverMs: 0,
      inUse: false,
    };
    // batchSize 0 asks for an open cursor with an empty first batch.
    const batch = options.batchSize === 0 ? [] : await this.takeBatch(op, cursor, options.batchSize ?? DEFAULT_FIRST_BATCH_SIZE);
    if (!options.singleBatch && cursor.position < results.length) {
      cursor.id = Long.fromBigInt(this.nextId++);
      if (op.deadline !== Number.POSITIVE_INFINITY) cursor.leftoverMs = Math.max(1, op.deadline - performance.now());
      this.open.set(cursor.id.toString(), cursor);
      this.startMonitor();
    }
    return encodeCursorReply('firstBatch', batch, cursor.id, ns);
  }

  has(id: Long): boolean {
    return this.open.has(id.toString());
  }

  /**
   * The next batch of a cursor. Its time limit is what the opening command's maxTimeMS left;
   * a getMore that fails (time limit, interruption) closes the cursor, as in mongod.
   */
  async getMore(op: Operation, id: Long, batchSize: number | undefined): Promise<EncodedReply> {
    const key = id.toString();
    const cursor = this.open.get(key);
    if (!cursor || this.expired(cursor, Date.now())) {
      this.close(key);
      throw commandError('CursorNotFound', `cursor id ${key} not found`);
    }
    if (cursor.inUse) throw commandError('CursorInUse', `cursor id ${key} is already in use`);
    cursor.inUse = true;
    cursor.connectionId = op.connectionId;
    op.limitTo(cursor.leftoverMs);
    try {
      const batch = await this.takeBatch(op, cursor, batchSize);
      let replyId = id;
      if (cursor.position >= cursor.results.length || !this.open.has(key)) {
        this.close(key);
        replyId = Long.ZERO;
      } else if (cursor.leftoverMs > 0) {
        cursor.leftoverMs = Math.max(1, op.deadline - performance.now());
      }
      return encodeCursorReply('nextBatch', batch, replyId, cursor.ns);
    } catch (error) {
      this.close(key);
      throw error;
    } finally {
      cursor.inUse = false;
      cursor.lastUsed = Date.now();
    }
  }

  kill(id: Long): boolean {
    return this.close(id.toString());
  }

  /** A client disconnected: the cursors it last used cannot be continued by it and are freed. */
  closeConnection(connectionId: number): void {
    for (const [key, cursor] of this.open) if (cursor.connectionId === connectionId && !cursor.inUse) this.close(key);
  }

  /** Closes cursors idle for longer than cursorTimeoutMillis (mongod's cursor monitor). */
  reapIdle(now = Date.now()): number {
    let reaped = 0;
    for (const [key, cursor] of this.open) {
      if (this.expired(cursor, now)) {
        this.close(key);
        reaped++;
      }
    }
    return reaped;
  }

  get size(): number {
    return this.open.size;
  }

  closeAll(): void {
    this.open.clear();
    if (this.monitor) clearTimeout(this.monitor);
    this.monitor = null;
  }

  /**
   * Forgets a cursor. A large result set (a `$group` over an upload, a raw query) is then garbage,
   * often hundreds of megabytes: it is collected soon, so that the heap it grew is given back
   * (`releaseDroppedMemory`) instead of staying resident until V8 decides to collect.
   */
  private close(key: string): boolean {
    const cursor = this.open.get(key);
    if (!cursor) return false;
    this.open.delete(key);
    if (cursor.results.length >= LARGE_RESULTS) releaseDroppedMemory(cursor.results.length * RESULT_DOCUMENT_BYTES);
    return true;
  }

  private expired(cursor: OpenCursor, now: number): boolean {
    return !cursor.noTimeout && !cursor.inUse && now - cursor.lastUsed > this.timeoutMs();
  }

  /** Looks for idle cursors every 4 s (sooner when the timeout is shorter) while any is open. */
  private startMonitor(): void {
    if (this.monitor) return;
    const period = Math.max(20, Math.min(MONITOR_PERIOD_MS, this.timeoutMs()));
    this.monitor = setTimeout(() => {
      this.monitor = null;
      this.reapIdle();
      if (this.open.size > 0) this.startMonitor();
    }, period);
    this.monitor.unref();
  }

  private async takeBatch(op: Operation, cursor: OpenCursor, batchSize: number | undefined): Promise<Uint8Array[]> {
    const limit = batchSize && batchSize > 0 ? batchSize : Number.POSITIVE_INFINITY;
    const batch: Uint8Array[] = [];
    let bytes = 0;
    while (cursor.position < cursor.results.length && batch.length < limit) {
      const encoded = serialize(cursor.results[cursor.position]);
      bytes += encoded.length;
      if (batch.length > 0 && bytes > MAX_BATCH_BYTES) break;
      batch.push(encoded);
      cursor.position++;
      if (op.tick()) await op.yieldTurn();
    }
    return batch;
  }
}
