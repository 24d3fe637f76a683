import { calculateObjectSize, Long } from 'bson';
import type { Document } from './bson-values';

/** mongod caps a batch at 16 MiB of documents; the first batch of find/aggregate at 101 documents. */
// Slightly under 16 MiB so a full batch plus the reply envelope still fits bson's serializer buffer.
const MAX_BATCH_BYTES = 16_000_000;
export const DEFAULT_FIRST_BATCH_SIZE = 101;

interface OpenCursor {
  ns: string;
  results: Document[];
  position: number;
}

export interface Batch {
  cursor: { id: Long; ns: string; firstBatch?: Document[]; nextBatch?: Document[] };
}

/** Server-wide registry of open cursors (result sets are materialised when the cursor opens). */
export class CursorRegistry {
  private readonly open = new Map<string, OpenCursor>();
  private nextId = 1n;

  /** Returns the first batch; registers a cursor only if results remain. */
  openCursor(ns: string, results: Document[], batchSize: number | undefined, singleBatch = false): Batch {
    const cursor: OpenCursor = { ns, results, position: 0 };
    // batchSize 0 asks for an open cursor with an empty first batch.
    const firstBatch = batchSize === 0 ? [] : this.takeBatch(cursor, batchSize ?? DEFAULT_FIRST_BATCH_SIZE);
    let id = Long.ZERO;
    if (!singleBatch && cursor.position < results.length) {
      id = Long.fromBigInt(this.nextId++);
      this.open.set(id.toString(), cursor);
    }
    return { cursor: { id, ns, firstBatch } };
  }

  has(id: Long): boolean {
    return this.open.has(id.toString());
  }

  getMore(id: Long, batchSize: number | undefined): Batch | undefined {
    const cursor = this.open.get(id.toString());
    if (!cursor) return undefined;
    const nextBatch = this.takeBatch(cursor, batchSize);
    let replyId = id;
    if (cursor.position >= cursor.results.length) {
      this.open.delete(id.toString());
      replyId = Long.ZERO;
    }
    return { cursor: { id: replyId, ns: cursor.ns, nextBatch } };
  }

  kill(id: Long): boolean {
    return this.open.delete(id.toString());
  }

  closeAll(): void {
    this.open.clear();
  }

  private takeBatch(cursor: OpenCursor, batchSize: number | undefined): Document[] {
    const limit = batchSize && batchSize > 0 ? batchSize : Number.POSITIVE_INFINITY;
    const batch: Document[] = [];
    let bytes = 0;
    while (cursor.position < cursor.results.length && batch.length < limit) {
      const doc = cursor.results[cursor.position];
      bytes += calculateObjectSize(doc);
      if (batch.length > 0 && bytes > MAX_BATCH_BYTES) break;
      batch.push(doc);
      cursor.position++;
    }
    return batch;
  }
}
