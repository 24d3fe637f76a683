import type { InsertBatch } from '@lib/persistence';
import { inSpan } from '@lib/tracing';
import type { GpdFileKind } from '../read/gpd-layout';

interface BulkTarget {
  bulkBatch(tenantId: string, expectedDocuments: number): InsertBatch;
  insertBatch(batch: InsertBatch): Promise<number>;
}
type Repositories = Record<GpdFileKind, BulkTarget>;

const KINDS: readonly GpdFileKind[] = ['cost', 'asset', 'utilization'];

/**
 * Buffers enriched documents per collection and writes them with the driver in fixed-size batches.
 * A batch holds its documents encoded (`bulkBatch`), not the objects: whatever the caller needs of
 * a document (its sums, its scope) it takes before `add`, and the object is garbage after.
 * Writes are pipelined: a full batch starts its insert and `add` returns at once, so that the next
 * batch is read and mapped while the database stores the previous one. At most one insert (and its
 * `afterFlush`) is in flight per collection: the next full batch of that collection waits for it.
 * `afterFlush` runs once per batch written, in order, after its insert. An insert that fails fails
 * the next `add` that flushes (or `flushAll`) with its error, and no later batch is written or
 * acknowledged.
 */
export class BatchWriter {
  private readonly buffers: Partial<Record<GpdFileKind, InsertBatch>> = {};
  private readonly inFlight: Partial<Record<GpdFileKind, Promise<void>>> = {};
  private failure: { error: unknown } | undefined;
  /** Time the caller waited on the database's bulk writes (reported apart by the job and the benchmark). */
  databaseMs = 0;

  constructor(
    private readonly tenantId: string,
    private readonly batchSize: number,
    private readonly repositories: Repositories,
    /** `sent`: the documents of the batch, `written`: those the database stored. */
    private readonly afterFlush: (written: number, kind: GpdFileKind, sent: number) => Promise<void>,
  ) {}

  /**
   * Adds a document; synchronous (`undefined`) unless its batch is full: the promise then settles
   * once the previous batch of that collection is written and this one's insert has started.
   * `const flushing = writer.add(kind, doc); if (flushing) await flushing;`
   */
  add(kind: GpdFileKind, doc: object): Promise<void> | undefined {
    const batch = (this.buffers[kind] ??= this.repositories[kind].bulkBatch(this.tenantId, this.batchSize));
    batch.add(doc);
    return batch.length >= this.batchSize ? this.flush(kind) : undefined;
  }

  /** Writes what is buffered and waits for every insert in flight: nothing is pending once it resolves. */
  async flushAll(): Promise<void> {
    for (const kind of KINDS) await this.flush(kind);
    for (const kind of KINDS) await this.settle(kind);
    this.throwFailure();
  }

  /** Waits for the insert in flight of `kind` (the time counts as database time). */
  private async settle(kind: GpdFileKind): Promise<void> {
    const pending = this.inFlight[kind];
    if (!pending) return;
    const started = performance.now();
    await pending;
    this.databaseMs += performance.now() - started;
    if (this.inFlight[kind] === pending) delete this.inFlight[kind];
  }

  private throwFailure(): void {
    if (this.failure) throw this.failure.error;
  }

  private async flush(kind: GpdFileKind): Promise<void> {
    this.throwFailure();
    const batch = this.buffers[kind];
    if (!batch || batch.length === 0) return;
    delete this.buffers[kind];
    await this.settle(kind);
    this.throwFailure();
    // the write runs on; its failure is kept (never an unhandled rejection) and thrown by the next flush
    this.inFlight[kind] = this.write(kind, batch).catch((error: unknown) => {
      this.failure ??= { error };
    });
  }

  private write(kind: GpdFileKind, batch: InsertBatch): Promise<void> {
    return inSpan('write batch', { attributes: { 'corelite.batch.kind': kind, 'corelite.batch.rows': batch.length } }, async () => {
      const written = await this.repositories[kind].insertBatch(batch);
      if (this.failure) return;
      await this.afterFlush(written, kind, batch.length);
    });
  }
}
