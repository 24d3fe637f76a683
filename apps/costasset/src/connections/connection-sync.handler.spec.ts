import { Readable } from 'node:stream';
import type { Client } from 'minio';
import type { CostassetEnvironment } from '../costasset.environment';
import { TransientFault } from '../jobs/faults';
import type { JobContext } from '../jobs/job-handler';
import type { FocusUploadsService } from '../uploads/focus/focus-uploads.service';
import type { ConnectionPeriodRepository, ConnectionRepository, ConnectionRunRepository } from './connection.repositories';
import type { ConnectionSources } from './connection-sources';
import { ConnectionSyncHandler, SyncPayload } from './connection-sync.handler';
import { DeliveryCopier } from './delivery-copier';
import type { ConnectionPeriod } from './schemas/connection-state.schema';
import type { BucketSource, ListedObject } from './sources/bucket-source';

const CONNECTION = {
  tenantId: 't',
  connectionId: 'c1',
  name: 'bucket',
  type: 's3',
  layout: 'focus-files',
  source: { prefix: '' },
  createdBy: { userId: 'admin', idpId: 'idp' },
};

/** A bucket whose reads can fail once, like a connection reset mid-sync. */
class FakeBucket implements BucketSource {
  readonly location = 's3://fake';
  readonly objects = new Map<string, { etag: string; body: string }>();
  failOnce = new Set<string>();
  reads: string[] = [];

  async *list(): AsyncIterable<ListedObject> {
    for (const [key, { etag, body }] of [...this.objects].sort(([a], [b]) => a.localeCompare(b)))
      yield { key, etag, size: body.length, lastModified: new Date(0) };
  }

  async read(key: string): Promise<Readable> {
    this.reads.push(key);
    if (this.failOnce.delete(key)) throw Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    return Readable.from([Buffer.from(this.objects.get(key)?.body ?? '')]);
  }
}

function setup() {
  const bucket = new FakeBucket();
  const stored = new Map<string, number>();
  const puts: string[] = [];
  const store = {
    statObject: async (_bucket: string, key: string) => {
      if (!stored.has(key)) throw Object.assign(new Error('not found'), { code: 'NotFound' });
      return { size: stored.get(key) };
    },
    putObject: async (_bucket: string, key: string, stream: Readable) => {
      let size = 0;
      for await (const chunk of stream) size += (chunk as Buffer).length;
      stored.set(key, size);
      puts.push(key);
    },
  } as unknown as Client;
  const env = {
    JOBS_HEARTBEAT_DEADLINE_MS: 60_000,
    FOCUS_MAX_PARTS: 1000,
    FOCUS_MAX_FILE_BYTES: 1e12,
    S3_BUCKET: 'corelite',
  } as CostassetEnvironment;
  const ledger: ConnectionPeriod[] = [];
  const outcomes: Record<string, unknown>[] = [];
  const imports = new Map<string, number>();
  const states = new Map<string, { status: string; errors: { reason: string }[] }>();
  const handler = new ConnectionSyncHandler(
    {
      findOne: async () => CONNECTION,
      takeLease: async () => true,
      releaseLease: async () => undefined,
    } as unknown as ConnectionRepository,
    {
      started: async () => undefined,
      progressed: async () => undefined,
      finished: async (_t: string, _r: string, outcome: Record<string, unknown>) => void outcomes.push(outcome),
      failed: async () => undefined,
    } as unknown as ConnectionRunRepository,
    {
      find: async () => [...ledger],
      record: async (_t: string, entry: ConnectionPeriod) => {
        const index = ledger.findIndex((known) => known.group === entry.group);
        if (index >= 0) ledger[index] = entry;
        else ledger.push(entry);
      },
    } as unknown as ConnectionPeriodRepository,
    {
      open: async () => bucket,
      credentialsOf: () => ({}),
      list: async (source: BucketSource) => {
        const all: ListedObject[] = [];
        for await (const object of source.list('')) all.push(object);
        return all;
      },
      manifestReader: () => async () => {
        throw new Error('no manifests here');
      },
    } as unknown as ConnectionSources,
    new DeliveryCopier(store, env),
    {
      states: async () => states,
      importFromConnection: async (_t: string, refId: string) => {
        imports.set(refId, (imports.get(refId) ?? 0) + 1);
        return { uploadId: refId, jobId: `job-${refId}` };
      },
    } as unknown as FocusUploadsService,
    env,
  );
  const run = (jobId: string, attempt = 1) =>
    handler.run({
      tenantId: 't',
      jobId,
      attempt,
      payload: { connectionId: 'c1' },
      progress: async () => undefined,
    } as JobContext<SyncPayload>);
  return { bucket, puts, imports, outcomes, states, run };
}

describe('a connection sync', () => {
  it('resumes where it stopped: a retry after a fault copies and imports nothing twice, and reports each delivery of the run', async () => {
    const { bucket, puts, imports, outcomes, run } = setup();
    bucket.objects.set('focus/2026-08/a.csv', { etag: 'a1', body: 'aaaa' });
    bucket.objects.set('focus/2026-09/b.csv', { etag: 'b1', body: 'bbbbbb' });
    bucket.objects.set('focus/2026-09/c.csv', { etag: 'c1', body: 'cc' });
    bucket.objects.set('focus/2026-10/d.csv', { etag: 'd1', body: 'd' });
    bucket.failOnce.add('focus/2026-09/c.csv');

    await expect(run('run-1')).rejects.toBeInstanceOf(TransientFault);
    expect(puts).toEqual(['focus/2026-08/a.csv', 'focus/2026-09/b.csv'].map((key) => expect.stringContaining(encodeURIComponent(key))));
    expect(imports.size).toBe(1);

    await run('run-1', 2);
    // each file stored once, each delivery handed to the import once per upload id
    expect(new Set(puts).size).toBe(puts.length);
    expect(puts).toHaveLength(4);
    expect([...imports.values()]).toEqual([2, 1, 1]);
    expect(outcomes[0]).toMatchObject({ found: 4, imported: 4, skipped: 0, rejected: 0 });
    expect((outcomes[0].imports as unknown[]).length).toBe(3);
  });

  it('never reads an unchanged delivery again, and imports a changed folder whole', async () => {
    const { bucket, puts, imports, outcomes, run } = setup();
    bucket.objects.set('focus/2026-09/b.csv', { etag: 'b1', body: 'bbbbbb' });
    bucket.objects.set('focus/2026-09/c.csv', { etag: 'c1', body: 'cc' });
    bucket.objects.set('focus/2026-10/d.csv', { etag: 'd1', body: 'd' });
    await run('run-1');
    const readsAfterFirst = bucket.reads.length;

    await run('run-2');
    expect(bucket.reads.length).toBe(readsAfterFirst);
    expect(outcomes[1]).toMatchObject({ imported: 0, skipped: 3, imports: [] });

    bucket.objects.set('focus/2026-09/c.csv', { etag: 'c2', body: 'ccc' });
    await run('run-3');
    expect(outcomes[2]).toMatchObject({ imported: 2, skipped: 1 });
    expect(bucket.reads.slice(readsAfterFirst).sort()).toEqual(['focus/2026-09/b.csv', 'focus/2026-09/c.csv']);
    expect(imports.size).toBe(3);
    expect(puts).toHaveLength(5);
  });

  it('imports again a delivery whose last import failed, but not one whose upload was cleaned', async () => {
    const { bucket, imports, outcomes, states, run } = setup();
    bucket.objects.set('focus/2026-09/b.csv', { etag: 'b1', body: 'bbbbbb' });
    bucket.objects.set('focus/2026-10/d.csv', { etag: 'd1', body: 'd' });
    await run('run-1');
    const [september, october] = [...imports.keys()];
    states.set(september, { status: 'failed', errors: [{ reason: 'no exchange rate from EUR to USD' }] });
    states.set(october, { status: 'cleaned', errors: [] });

    await run('run-2');
    expect(outcomes[1]).toMatchObject({ imported: 1, skipped: 1 });
    const files = outcomes[1].files as { key: string; outcome: string; reason?: string }[];
    expect(files.find((file) => file.key === 'focus/2026-09/b.csv')).toMatchObject({
      outcome: 'imported',
      reason: expect.stringMatching(/last import failed \(no exchange rate from EUR to USD\)/),
    });
    expect(files.find((file) => file.key === 'focus/2026-10/d.csv')).toMatchObject({
      outcome: 'skipped',
      reason: expect.stringMatching(/was cleaned/),
    });
    expect(imports.get(september)).toBe(2);
  });
});
