import { inSpan } from '@lib/tracing';
import type { GpdFileKind } from '../read/gpd-layout';

interface BulkTarget {
  insertBulk(tenantId: string, docs: never[]): Promise<number>;
}
type Repositories = Record<GpdFileKind, BulkTarget>;

/** Buffers enriched documents per collection and writes them with the driver in fixed-size batches. */
export class BatchWriter {
  private readonly buffers: Record<GpdFileKind, object[]> = { cost: [], asset: [], utilization: [] };
  /** Time spent waiting on the database's bulk writes (reported apart by the job and the benchmark). */
  databaseMs = 0;

  constructor(
    private readonly tenantId: string,
    private readonly batchSize: number,
    private readonly repositories: Repositories,
    private readonly afterFlush: (written: number, kind: GpdFileKind, docs: readonly object[]) => Promise<void>,
  ) {}

  async add(kind: GpdFileKind, doc: object): Promise<void> {
    const buffer = this.buffers[kind];
    buffer.push(doc);
    if (buffer.length >= this.batchSize) await this.flush(kind);
  }

  async flushAll(): Promise<void> {
    for (const kind of Object.keys(this.buffers) as GpdFileKind[]) await this.flush(kind);
  }

  private async flush(kind: GpdFileKind): Promise<void> {
    const docs = this.buffers[kind];
    if (docs.length === 0) return;
    this.buffers[kind] = [];
    await inSpan('write batch', { attributes: { 'corelite.batch.kind': kind, 'corelite.batch.rows': docs.length } }, async () => {
      const started = performance.now();
      const written = await this.repositories[kind].insertBulk(this.tenantId, docs as never[]);
      this.databaseMs += performance.now() - started;
      await this.afterFlush(written, kind, docs);
    });
  }
}
