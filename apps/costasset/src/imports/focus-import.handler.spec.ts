import { Readable } from 'node:stream';
import type { Client } from 'minio';
import type { MessageBus } from '@lib/messaging';
import type { Metrics } from '@lib/metrics';
import type { CostassetEnvironment } from '../costasset.environment';
import type { ModuleRef } from '@nestjs/core';
import { ImportReferenceData } from './map/reference-data';
import type { CoreSettingsClient } from '../feature-flags/core-settings.client';
import { CurrencyConverter } from '../currency/currency-converter';
import { UploadsRepository } from '../uploads/uploads.repository';
import type { UploadRecords } from '../uploads/upload-records';
import { ImportVisibility } from '../uploads/import-visibility';
import type { UploadAccess } from '../uploads/upload-access';
import type { Upload, UploadPart } from '../uploads/schemas/upload.schema';
import { AwaitChildren, ChildOutcome, CompletedWithErrors, JobContext, PermanentJobError, JobHandlerFor } from '../jobs/job-handler';
import { TransientFault } from '../jobs/faults';
import type { AssetRepository, CostLineItemRepository, UtilizationRepository } from '../line-items/line-items.repository';
import type { RollupsService } from '../rollups/rollups.service';
import { FocusImportHandler } from './focus-import.handler';
import { FocusImportPartHandler } from './focus-import-part.handler';
import { FocusLoader } from './focus-loader';
import type { FocusImportPartPayload } from '../uploads/import-payloads';
import { ImportSources } from './read/import-sources';
import { ImportOutcomes } from './report/import-outcomes';
import { DiscoveryGate } from './rules/discovery-gate';
import type { ImportViews } from '../rollups/import-views';
import { ImportReplacement } from './write/import-replacement';
import { LineItemWriter } from './write/line-item-writer';
import { UploadRows } from './write/upload-rows';
import { InsertBatch } from '@lib/persistence';

/**
 * The FOCUS import's rules, with the upload records, the line items and the stored files in memory:
 * what it writes and rejects, how it ends (succeeded, completed_with_errors, failed), that a failed
 * import keeps none of its rows, that an attempt replaces what an earlier attempt wrote, and that a
 * newer import of a (provider, billing account, billing period) replaces an older one.
 */

type Doc = Record<string, unknown>;

const valueAt = (doc: Doc, path: string): unknown =>
  path.split('.').reduce<unknown>((value, key) => (value == null ? undefined : (value as Doc)[key]), doc);

function matches(doc: Doc, filter: Doc): boolean {
  return Object.entries(filter).every(([key, condition]) => {
    if (key === '$and') return (condition as Doc[]).every((part) => matches(doc, part));
    const value = valueAt(doc, key);
    if (condition && typeof condition === 'object' && !Array.isArray(condition) && !(condition instanceof Date)) {
      return Object.entries(condition as Doc).every(([operator, operand]) => {
        if (operator === '$eq') return value === operand;
        if (operator === '$ne') return value !== operand;
        if (operator === '$in') return (operand as unknown[]).includes(value);
        if (operator === '$exists') return (value !== undefined) === operand;
        throw new Error(`operator ${operator} not simulated`);
      });
    }
    return value === condition;
  });
}

function apply(doc: Doc, update: Doc): void {
  for (const [path, value] of Object.entries((update.$set ?? {}) as Doc)) doc[path] = structuredClone(value);
  for (const path of Object.keys((update.$unset ?? {}) as Doc)) delete doc[path];
  for (const [path, value] of Object.entries((update.$addToSet ?? {}) as Doc)) {
    const list = (doc[path] as unknown[] | undefined) ?? [];
    if (!list.includes(value)) list.push(value);
    doc[path] = list;
  }
}

/** The repository methods the import uses, over an array (tenant scoped, copies out like `lean()`). */
class InMemory {
  docs: Doc[] = [];
  readonly insertBulk = jest.fn(async (tenantId: string, docs: Doc[]) => {
    this.docs.push(...docs.map((doc) => ({ ...doc, tenantId })));
    return docs.length;
  });

  bulkBatch(tenantId: string) {
    return new InsertBatch(tenantId, false);
  }

  readonly insertBatch = jest.fn(async (batch: InsertBatch) => this.insertBulk(batch.tenantId, batch.objects as Doc[]));

  async find(tenantId: string, filter: Doc = {}) {
    return this.docs.filter((doc) => doc.tenantId === tenantId && matches(doc, filter)).map((doc) => structuredClone(doc));
  }

  async findOne(tenantId: string, filter: Doc) {
    return (await this.find(tenantId, filter))[0] ?? null;
  }

  async count(tenantId: string, filter: Doc = {}) {
    return (await this.find(tenantId, filter)).length;
  }

  async updateOne(tenantId: string, filter: Doc, update: Doc) {
    const found = this.docs.find((doc) => doc.tenantId === tenantId && matches(doc, filter));
    if (found) apply(found, update);
    return found ? 1 : 0;
  }

  async deleteMany(tenantId: string, filter: Doc = {}) {
    const before = this.docs.length;
    this.docs = this.docs.filter((doc) => !(doc.tenantId === tenantId && matches(doc, filter)));
    return before - this.docs.length;
  }
}

const HEADER = [
  'BilledCost',
  'BillingAccountId',
  'BillingCurrency',
  'ChargeCategory',
  'ChargePeriodStart',
  'ChargePeriodEnd',
  'ProviderName',
  'ServiceCategory',
  'ServiceName',
  'Id',
];

interface RowSpec {
  cost?: string;
  account?: string;
  currency?: string;
  start?: string;
  end?: string;
  provider?: string;
  id: string;
}

const csvOf = (rows: RowSpec[], header = HEADER) =>
  Buffer.from(
    [
      header.join(','),
      ...rows.map(({ cost = '1.5', account = 'acc-1', currency = 'USD', start = '2024-01-05', end = '2024-01-06', provider = 'AWS', id }) =>
        [cost, account, currency, 'Usage', start, end, provider, 'Compute', 'EC2', id].join(','),
      ),
    ].join('\r\n') + '\r\n',
  );

/** FOCUS_PART_JOBS_MIN_PARTS of the worlds made: every rule below holds for uploads imported as one job and part by part. */
let partJobsFrom = 0;

function world(options: { thresholdPercent?: number; batchSize?: number; visibility?: Doc | null } = {}) {
  const env = {
    S3_BUCKET: 'bucket',
    FOCUS_PART_JOBS_MIN_PARTS: partJobsFrom,
    GPD_BATCH_SIZE: options.batchSize ?? 2,
    INGEST_REJECTED_ROWS_THRESHOLD_PERCENT: options.thresholdPercent ?? 0,
    FOCUS_MAX_FILE_BYTES: 1024 * 1024,
    FOCUS_PARQUET_MEMORY_CAP_BYTES: 1024 * 1024,
  } as CostassetEnvironment;
  const objects = new Map<string, Buffer>();
  const store = {
    statObject: jest.fn(async (_bucket: string, key: string) => {
      const body = objects.get(key);
      if (!body) throw Object.assign(new Error('Not Found'), { code: 'NotFound' });
      return { size: body.length };
    }),
    getObject: jest.fn(async (_bucket: string, key: string) => Readable.from([objects.get(key) as Buffer])),
  };
  const uploads = new InMemory();
  const costs = new InMemory();
  const assets = new InMemory();
  const utilization = new InMemory();
  const tracker = {
    touch: jest.fn(async () => undefined),
    add: jest.fn(),
    stored: jest.fn(),
    finish: jest.fn(async () => undefined),
    storePart: jest.fn(async () => undefined),
    parts: { bumps: 1, complete: true },
    lastGeneration: 1,
    maintenanceMs: 0,
  };
  const rollups = {
    track: jest.fn(() => tracker),
    begin: jest.fn(async () => undefined),
    refresh: jest.fn(async () => undefined),
    settleParts: jest.fn(async () => true),
  };
  const metrics = { ingestionRows: jest.fn() };
  const conversion = { corporateCurrency: 'USD', rateOf: (currency: string) => ({ USD: 1, EUR: 1.1 })[currency] };
  const reference = {
    conversion: jest.fn(async () => conversion),
    metadata: jest.fn(async () => ({ categoriesByAssetType: new Map(), locationsByRegion: new Map() })),
  };
  const settings = { isEnabled: jest.fn(async () => false), listValue: jest.fn(async () => []) };
  const bus = { publish: jest.fn(async () => undefined) };
  /** The import view's calls, in order, beside the line items written (`rowsAt`: cost rows stored at the call). */
  const viewCalls: { call: string; uploadRefId?: string; entries?: unknown[]; rowsAt: number }[] = [];
  const views = {
    hide: jest.fn(
      async (_tenant: string, uploadRefId: string) => void viewCalls.push({ call: 'hide', uploadRefId, rowsAt: costs.docs.length }),
    ),
    publish: jest.fn(async (_tenant: string, uploadRefId: string, entries: unknown[]) => {
      viewCalls.push({ call: 'publish', uploadRefId, entries, rowsAt: costs.docs.length });
    }),
    release: jest.fn(
      async (_tenant: string, entries: unknown[]) => void viewCalls.push({ call: 'release', entries, rowsAt: costs.docs.length }),
    ),
  };
  const access = { importVisibility: jest.fn(async () => new ImportVisibility(options.visibility ?? null)) };
  const records = new UploadsRepository(uploads as unknown as UploadRecords);
  const rows = new UploadRows(
    costs as unknown as CostLineItemRepository,
    assets as unknown as AssetRepository,
    utilization as unknown as UtilizationRepository,
    rollups as unknown as RollupsService,
    views as unknown as ImportViews,
  );
  const ports = {
    get: (token: unknown) => (token === CurrencyConverter ? { conversionFor: reference.conversion } : { snapshot: reference.metadata }),
  };
  const sources = new ImportSources(store as unknown as Client, env);
  const referenceData = new ImportReferenceData(
    ports as unknown as ModuleRef,
    new DiscoveryGate(settings as unknown as CoreSettingsClient),
  );
  const writer = new LineItemWriter(
    costs as unknown as CostLineItemRepository,
    assets as unknown as AssetRepository,
    utilization as unknown as UtilizationRepository,
    rows,
    rollups as unknown as RollupsService,
    bus as unknown as MessageBus,
    env,
    views as unknown as ImportViews,
  );
  const loader = new FocusLoader(records, sources, referenceData, writer);
  const handler = new FocusImportHandler(
    records,
    loader,
    sources,
    referenceData,
    writer,
    new ImportReplacement(records, rows, views as unknown as ImportViews),
    new ImportOutcomes(records, env, metrics as unknown as Metrics),
    access as unknown as UploadAccess,
    env,
  );
  const partHandler = new FocusImportPartHandler(records, loader, referenceData, writer, access as unknown as UploadAccess);

  let uploadCount = 0;
  /** Stores the files and the upload record, as the upload endpoints leave them before the job runs. */
  function upload(files: { name: string; body: Buffer }[], overrides: Partial<Upload> = {}): string {
    const refId = overrides.refId ?? `up-${++uploadCount}`;
    const parts: UploadPart[] = files.map(({ name, body }, index) => {
      const objectKey = `tenants/t1/gpd/${refId}/${index}-${name}`;
      objects.set(objectKey, body);
      return { name, objectKey, format: 'csv', rowsRead: 0, rowsWritten: 0, rowsRejected: 0 };
    });
    uploads.docs.push({
      tenantId: 't1',
      refId,
      format: 'focus',
      fileName: files[0]?.name ?? '',
      objectKey: '',
      status: 'uploaded',
      rowsRead: 0,
      rowsWritten: 0,
      rowsRejected: 0,
      errors: [],
      parts,
      declaredVersion: '1.2',
      importRequestedAt: new Date(Date.UTC(2024, 0, 1, 0, uploadCount)),
      ...overrides,
    });
    return refId;
  }

  const progress = jest.fn<Promise<void>, [number, number, { rows?: number }?]>(async () => undefined);
  const run = (refId: string, attempt = 1) => {
    const context: JobContext<{ refId: string }> = { tenantId: 't1', jobId: `job-${refId}`, payload: { refId }, attempt, progress };
    return handler.run(context).then(async (answer) => {
      if (!(answer instanceof AwaitChildren)) return answer;
      // as the job runner does: each part job, then the upload's job again with what they handed over
      const children: ChildOutcome[] = [];
      for (const payload of answer.payloads as unknown as FocusImportPartPayload[]) {
        const part = { ...context, jobId: `${context.jobId}-${payload.partIndex}`, payload };
        const { result, handoff } = await partHandler.run(part);
        children.push({ result, handoff });
      }
      return handler.run({ ...context, children });
    });
  };
  const record = (refId: string) => uploads.docs.find((doc) => doc.refId === refId) as unknown as Upload;
  const rowsOf = (refId: string) => costs.docs.filter((doc) => doc.uploadRefId === refId);

  return { handler, partHandler, run, upload, record, rowsOf, costs, uploads, objects, bus, progress, rollups, tracker, store, viewCalls };
}

const fails = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the import to fail');
    },
    (error: unknown) => error as Error,
  );

describe.each([
  ['as one job', 0],
  ['part by part', 2],
])('FocusImportHandler (%s)', (_mode, from) => {
  beforeAll(() => (partJobsFrom = from));

  it('registers itself as the focus.import job, counting progress in bytes', () => {
    const { handler } = world();
    expect(Reflect.getMetadata(JobHandlerFor.KEY, FocusImportHandler)).toBe('focus.import');
    expect(handler.progressUnit).toBe('bytes');
  });

  describe('outcome', () => {
    it('succeeds when every row is written, recording counts, scopes and providers, and announces the changed periods', async () => {
      const { run, upload, record, rowsOf, bus } = world();
      const refId = upload([{ name: 'a.csv', body: csvOf([{ id: 'r1' }, { id: 'r2', cost: '2.25' }, { id: 'r3', account: 'acc-2' }]) }]);
      const result = await run(refId);
      expect(result).not.toBeInstanceOf(CompletedWithErrors);
      expect(result).toMatchObject({
        rowsRead: 3,
        rowsWritten: 3,
        rowsRejected: 0,
        providers: ['AWS'],
        scopes: 2,
        replaced: [],
        outdated: [],
      });
      expect(rowsOf(refId).map((row) => [row.sourceId, row.billedCost])).toEqual([
        ['r1', 1.5],
        ['r2', 2.25],
        ['r3', 1.5],
      ]);
      expect(record(refId)).toMatchObject({
        status: 'imported',
        rowsRead: 3,
        rowsWritten: 3,
        rowsRejected: 0,
        replacing: false,
        parts: [expect.objectContaining({ rowsRead: 3, rowsWritten: 3, rowsRejected: 0, focusVersion: '1.2', versionSource: 'declared' })],
      });
      expect(record(refId).scopes?.map(({ billingAccountId, rows }) => [billingAccountId, rows])).toEqual([
        ['acc-1', 2],
        ['acc-2', 1],
      ]);
      expect(bus.publish).toHaveBeenCalledWith('costasset.lineitems.changed', {
        tenantId: 't1',
        periods: [expect.any(String)],
        reason: 'ingestion',
      });
    });

    it(
      'rejects bad rows with file, line, id and every reason, writes ' +
        'the others, and ends completed_with_errors (never plain succeeded)',
      async () => {
        const { run, upload, record, rowsOf } = world();
        const refId = upload([{ name: 'a.csv', body: csvOf([{ id: 'r1' }, { id: 'r2', cost: 'abc', currency: 'usd' }, { id: 'r3' }]) }]);
        const result = await run(refId);
        expect(result).toBeInstanceOf(CompletedWithErrors);
        expect((result as CompletedWithErrors).result).toMatchObject({ rowsRead: 3, rowsWritten: 2, rowsRejected: 1 });
        expect(rowsOf(refId).map((row) => row.sourceId)).toEqual(['r1', 'r3']);
        expect(record(refId)).toMatchObject({
          status: 'imported_with_errors',
          errors: [
            {
              file: 'a.csv',
              line: 3,
              id: 'r2',
              reason: 'BilledCost "abc" is not a decimal number; BillingCurrency "usd" is not an ISO 4217 code',
            },
          ],
        });
        const rules = Object.fromEntries((record(refId).conformance?.rules ?? []).map((rule) => [rule.rule, rule.count]));
        expect(rules.DECIMAL_INVALID).toBe(1);
      },
    );

    it('counts a row with the wrong number of fields as rejected, not as written', async () => {
      const { run, upload } = world();
      const body = Buffer.concat([csvOf([{ id: 'r1' }]), Buffer.from('1,acc-1,USD\r\n')]);
      const refId = upload([{ name: 'a.csv', body }]);
      const result = (await run(refId)) as CompletedWithErrors;
      expect(result.result).toMatchObject({ rowsRead: 2, rowsWritten: 1, rowsRejected: 1 });
    });

    it('ends plain succeeded while the rejected rows stay within INGEST_REJECTED_ROWS_THRESHOLD_PERCENT', async () => {
      const { run, upload, record } = world({ thresholdPercent: 50 });
      const refId = upload([{ name: 'a.csv', body: csvOf([{ id: 'r1' }, { id: 'r2', cost: 'x' }, { id: 'r3' }, { id: 'r4' }]) }]);
      const result = await run(refId);
      expect(result).not.toBeInstanceOf(CompletedWithErrors);
      expect(result).toMatchObject({ rowsRead: 4, rowsWritten: 3, rowsRejected: 1 });
      expect(record(refId).status).toBe('imported');
    });

    it('fails, keeping no row but keeping the report, when no row could be written', async () => {
      const { run, upload, record, costs } = world();
      const refId = upload([
        {
          name: 'bad.csv',
          body: csvOf([
            { id: 'r1', cost: 'abc' },
            { id: 'r2', start: 'yesterday' },
          ]),
        },
      ]);
      const error = await fails(run(refId));
      expect(error).toBeInstanceOf(PermanentJobError);
      expect(error.message).toBe('no row could be written: 2 read, 2 rejected');
      expect(costs.docs).toEqual([]);
      expect(record(refId)).toMatchObject({ status: 'failed', rowsWritten: 0, rowsRead: 2, rowsRejected: 2 });
      expect(record(refId).errors.map((row) => row.id)).toEqual(['r1', 'r2']);
    });
  });

  describe('all or nothing', () => {
    it('removes the rows an earlier file wrote when a later file of the upload fails (missing required columns)', async () => {
      const { run, upload, record, costs } = world({ batchSize: 1 });
      const good = csvOf([{ id: 'r1' }, { id: 'r2' }, { id: 'r3' }]);
      const missing = Buffer.from('ChargePeriodStart,ProviderName\r\n2024-01-05,AWS\r\n');
      const refId = upload([
        { name: 'good.csv', body: good },
        { name: 'no-cost.csv', body: missing },
      ]);
      const error = await fails(run(refId));
      expect(error).toBeInstanceOf(PermanentJobError);
      expect(error.message).toContain('no-cost.csv missing required column(s): BilledCost, BillingCurrency, BillingAccountId');
      // the first file's rows were written (batches of one) before the second file was opened …
      expect(costs.insertBulk).toHaveBeenCalled();
      // … and none of them is left
      expect(costs.docs).toEqual([]);
      expect(record(refId)).toMatchObject({
        status: 'failed',
        rowsWritten: 0,
        errors: [{ file: 'no-cost.csv', line: 0, reason: 'missing required column(s): BilledCost, BillingCurrency, BillingAccountId' }],
      });
    });

    it('keeps the detailed report of a failed import when the runner’s onFailed follows', async () => {
      const { handler, run, upload, record } = world();
      const refId = upload([{ name: 'bad.csv', body: csvOf([{ id: 'r1', cost: 'abc' }]) }]);
      const error = await fails(run(refId));
      // the job runner calls onFailed for every PermanentJobError
      await handler.onFailed({ tenantId: 't1', payload: { refId } }, error.message);
      expect(record(refId).errors).toEqual([{ file: 'bad.csv', line: 2, id: 'r1', reason: 'BilledCost "abc" is not a decimal number' }]);
    });

    it('fails at once (no retry can help) when a file is no longer in the object store, keeping nothing', async () => {
      const { run, upload, record, objects, costs } = world();
      const refId = upload([{ name: 'a.csv', body: csvOf([{ id: 'r1' }]) }]);
      objects.clear();
      const error = await fails(run(refId));
      expect(error).toBeInstanceOf(PermanentJobError);
      expect(error.message).toBe('a.csv is no longer in the object store');
      expect(costs.docs).toEqual([]);
      expect(record(refId).status).toBe('failed');
    });

    it(
      'lets a transient failure be retried (not a PermanentJobError, ' +
        'the upload stays importing), and the retry ends with each row once',
      async () => {
        const { run, upload, record, rowsOf, costs } = world({ batchSize: 1 });
        const refId = upload([{ name: 'a.csv', body: csvOf([{ id: 'r1' }, { id: 'r2' }, { id: 'r3' }]) }]);
        const insert = costs.insertBulk.getMockImplementation() as (tenantId: string, docs: Doc[]) => Promise<number>;
        // the database goes away after two batches were written: those rows stay behind the failed attempt
        costs.insertBulk.mockImplementation(async (tenantId, docs) => {
          if (costs.insertBulk.mock.calls.length > 2) throw new Error('connection to the database lost');
          return insert(tenantId, docs);
        });
        const error = await fails(run(refId));
        expect(error).not.toBeInstanceOf(PermanentJobError);
        expect(record(refId).status).toBe('importing');
        expect(rowsOf(refId)).toHaveLength(2);
        costs.insertBulk.mockImplementation(insert);
        await run(refId, 2);
        expect(rowsOf(refId).map((row) => row.sourceId)).toEqual(['r1', 'r2', 'r3']);
        expect(record(refId)).toMatchObject({ status: 'imported', rowsRead: 3, rowsWritten: 3 });
      },
    );

    it('fails the attempt with a TransientFault (retried, never blamed on the file) when the object store breaks mid-read', async () => {
      const { run, upload, record, rowsOf, store } = world({ batchSize: 1 });
      const body = csvOf([{ id: 'r1' }, { id: 'r2' }, { id: 'r3' }]);
      const refId = upload([{ name: 'a.csv', body }]);
      const broken = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
      store.getObject.mockImplementationOnce(async () =>
        Readable.from(
          (async function* () {
            yield body.subarray(0, body.indexOf('\r\n', body.indexOf('r1')) + 2);
            throw broken;
          })(),
        ),
      );
      const error = await fails(run(refId));
      expect(error).toBeInstanceOf(TransientFault);
      expect(error).not.toBeInstanceOf(PermanentJobError);
      expect(error.message).toBe('object store unreachable: read ECONNRESET');
      expect(record(refId).status).toBe('importing');
      await run(refId, 2);
      expect(rowsOf(refId).map((row) => row.sourceId)).toEqual(['r1', 'r2', 'r3']);
    });

    it('names the object store, and retries, when a file cannot be looked up (a network fault, not a missing file)', async () => {
      const { run, upload, record, store } = world();
      const refId = upload([{ name: 'a.csv', body: csvOf([{ id: 'r1' }]) }]);
      store.statObject.mockRejectedValueOnce(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9000'), { code: 'ECONNREFUSED' }));
      const error = await fails(run(refId));
      expect(error).toBeInstanceOf(TransientFault);
      expect(error.message).toBe('object store unreachable: connect ECONNREFUSED 127.0.0.1:9000');
      expect(record(refId).status).toBe('importing');
    });

    it('starts every attempt by removing the rows an earlier attempt of the upload wrote', async () => {
      const { run, upload, rowsOf, costs } = world();
      const refId = upload([{ name: 'a.csv', body: csvOf([{ id: 'r1' }, { id: 'r2' }]) }]);
      // what a crashed attempt left behind
      costs.docs.push(
        { tenantId: 't1', uploadRefId: refId, sourceId: 'r1' },
        { tenantId: 't1', uploadRefId: refId, sourceId: 'half-written' },
      );
      await run(refId, 2);
      expect(rowsOf(refId).map((row) => row.sourceId)).toEqual(['r1', 'r2']);
    });

    it('removes the rows and fails the upload when the job is terminated or ends failed after its retries', async () => {
      const { handler, upload, record, costs } = world();
      for (const end of ['terminated', 'failed'] as const) {
        const refId = upload([{ name: 'a.csv', body: csvOf([{ id: 'r1' }]) }], { status: 'importing' });
        costs.docs.push({ tenantId: 't1', uploadRefId: refId, sourceId: 'r1' });
        if (end === 'terminated') await handler.onTerminated({ tenantId: 't1', payload: { refId } });
        else await handler.onFailed({ tenantId: 't1', payload: { refId } }, 'interrupted 3 times');
        expect(costs.docs.filter((doc) => doc.uploadRefId === refId)).toEqual([]);
        expect(record(refId)).toMatchObject({
          status: 'failed',
          errors: [{ file: '', line: 0, reason: end === 'terminated' ? 'import terminated on request' : 'interrupted 3 times' }],
        });
      }
    });

    it('refuses the whole import, keeping nothing, when a row lies outside the importer’s visibility', async () => {
      const { run, upload, record, costs } = world({ visibility: { billingAccountId: { $eq: 'acc-1' } } });
      const refId = upload([{ name: 'a.csv', body: csvOf([{ id: 'r1' }, { id: 'r2', account: 'acc-secret' }, { id: 'r3' }]) }]);
      const error = await fails(run(refId));
      expect(error).toBeInstanceOf(PermanentJobError);
      expect(error.message).toMatch(/^IMPORT_OUTSIDE_VISIBILITY: rows of 1 billing account\(s\) .*AWS\/acc-secret/);
      expect(costs.docs).toEqual([]);
      expect(record(refId)).toMatchObject({ status: 'failed', errors: [{ reason: expect.stringContaining('AWS/acc-secret') }] });
    });

    it('fails at once for an upload that no longer exists or was cleaned', async () => {
      const { run, upload } = world();
      expect(await fails(run('missing'))).toBeInstanceOf(PermanentJobError);
      const cleaned = upload([{ name: 'a.csv', body: csvOf([{ id: 'r1' }]) }], { status: 'cleaned' });
      expect((await fails(run(cleaned))).message).toBe('the upload no longer exists');
    });
  });

  describe('parts of one upload that hold the same rows', () => {
    const rows = (from: number, count: number, overrides: Partial<RowSpec> = {}) =>
      Array.from({ length: count }, (_unused, at) => ({ id: `r${from + at}`, cost: `${from + at}.5`, ...overrides }));

    it('refuses the whole upload when two parts are one snapshot twice, naming both parts and the scope, keeping no row', async () => {
      const { run, upload, record, costs } = world({ batchSize: 1 });
      const body = csvOf(rows(1, 5));
      const refId = upload([
        { name: 'exec-a.csv', body },
        { name: 'exec-b.csv', body },
      ]);
      const error = await fails(run(refId));
      expect(error).toBeInstanceOf(PermanentJobError);
      expect(error.message).toMatch(/^FOCUS_PARTS_OVERLAP: 1 pair\(s\) of parts hold the same rows \(exec-a\.csv and exec-b\.csv\)/);
      // the rows were written batch by batch as the parts were read: none of them is left
      expect(costs.insertBulk).toHaveBeenCalled();
      expect(costs.docs).toEqual([]);
      const reason =
        'holds the same rows as exec-b.csv for billing account acc-1, billing period 202401 (about 100% of its rows): ' +
        'two snapshots of one period in one upload would count its cost twice; ' +
        'import them as separate uploads (the newer replaces the older) or drop one';
      expect(record(refId)).toMatchObject({
        status: 'failed',
        rowsRead: 10,
        rowsWritten: 0,
        errors: [{ file: 'exec-a.csv', line: 0, reason }],
        parts: [
          { name: 'exec-a.csv', rowsRead: 5 },
          { name: 'exec-b.csv', rowsRead: 5 },
        ],
      });
      expect(record(refId).conformance?.rules).toContainEqual({
        rule: 'FOCUS_PARTS_OVERLAP',
        severity: 'error',
        count: 1,
        examples: [{ file: 'exec-a.csv', line: 0, message: reason }],
      });
    });

    it('refuses a later snapshot beside an earlier one (most rows the same, some restated), and names every pair', async () => {
      const { run, upload, record, costs } = world();
      const earlier = rows(1, 10);
      const later = [...earlier.slice(0, 8), ...rows(9, 2, { cost: '99' }), ...rows(11, 3)];
      const refId = upload([
        { name: 'monday.csv', body: csvOf(earlier) },
        { name: 'tuesday.csv', body: csvOf(later) },
        { name: 'other-account.csv', body: csvOf(rows(1, 10, { account: 'acc-2' })) },
        { name: 'tuesday-again.csv', body: csvOf(later) },
      ]);
      const error = await fails(run(refId));
      expect(error.message).toMatch(/^FOCUS_PARTS_OVERLAP: 3 pair\(s\)/);
      expect(costs.docs).toEqual([]);
      expect(record(refId).errors.map(({ file, reason }) => [file, reason.replace(/ for billing.*/, '')])).toEqual([
        ['monday.csv', 'holds the same rows as tuesday.csv'],
        ['monday.csv', 'holds the same rows as tuesday-again.csv'],
        ['tuesday.csv', 'holds the same rows as tuesday-again.csv'],
      ]);
      expect(record(refId).errors[0].reason).toContain('(about 80% of its rows)');
    });

    it('imports parts of one export that hold different rows of the same scope, every row once', async () => {
      const { run, upload, record, rowsOf } = world();
      const refId = upload([
        { name: 'part-1.csv', body: csvOf(rows(1, 6)) },
        { name: 'part-2.csv', body: csvOf(rows(7, 6)) },
      ]);
      expect(await run(refId)).toMatchObject({ rowsRead: 12, rowsWritten: 12, rowsRejected: 0, scopes: 1 });
      expect(rowsOf(refId)).toHaveLength(12);
      expect(record(refId)).toMatchObject({ status: 'imported', errors: [] });
      expect(record(refId).conformance?.rules?.map(({ rule }) => rule)).not.toContain('FOCUS_PARTS_OVERLAP');
    });
  });

  describe('replacement of earlier imports of the same scope', () => {
    it(
      'removes the rows an older import holds in the scopes it ' + 're-imports, and supersedes the older upload once it holds none',
      async () => {
        const { run, upload, record, rowsOf } = world();
        const older = upload([{ name: 'jan.csv', body: csvOf([{ id: 'r1' }, { id: 'r2' }]) }]);
        await run(older);
        const newer = upload([
          {
            name: 'jan.csv',
            body: csvOf([
              { id: 'r1', cost: '9' },
              { id: 'r2', cost: '9' },
            ]),
          },
        ]);
        const result = await run(newer);
        expect(result).toMatchObject({ replaced: [{ uploadRefId: older, rowsRemoved: 2 }] });
        expect(rowsOf(older)).toEqual([]);
        expect(rowsOf(newer).map((row) => row.billedCost)).toEqual([9, 9]);
        expect(record(older)).toMatchObject({ status: 'superseded', scopes: [], supersededBy: [newer] });
      },
    );

    it('is hidden from readers from before its first row until all are written, then shown as the older rows are hidden', async () => {
      const { run, upload, viewCalls } = world();
      const older = upload([{ name: 'jan.csv', body: csvOf([{ id: 'r1' }, { id: 'r2' }]) }]);
      await run(older);
      viewCalls.length = 0;
      const newer = upload([{ name: 'jan.csv', body: csvOf([{ id: 'r1', cost: '9' }]) }]);
      await run(newer);
      const scope = { uploadRefId: older, providerName: 'AWS', billingAccountId: expect.any(String), billingPeriod: expect.any(String) };
      expect(viewCalls.map(({ call }) => call)).toEqual(['release', 'hide', 'publish', 'release']);
      const [, hide, publish, release] = viewCalls;
      // hidden before its first row; shown, with the older rows of its scope hidden, once every row is
      // written and before any older row is removed; the older scope shown again once its rows are gone
      expect(hide).toMatchObject({ uploadRefId: newer, rowsAt: 2 });
      expect(publish).toMatchObject({ uploadRefId: newer, entries: [scope], rowsAt: 3 });
      expect(release).toMatchObject({ entries: [scope], rowsAt: 1 });
    });

    it('keeps the older import’s rows of other scopes (another account or period), and the older upload loaded', async () => {
      const { run, upload, record, rowsOf } = world();
      const older = upload([
        {
          name: 'all.csv',
          body: csvOf([{ id: 'a1' }, { id: 'b1', account: 'acc-2' }, { id: 'feb', start: '2024-02-05', end: '2024-02-06' }]),
        },
      ]);
      await run(older);
      const newer = upload([{ name: 'acc-1-jan.csv', body: csvOf([{ id: 'a1-new' }]) }]);
      expect(await run(newer)).toMatchObject({ replaced: [{ uploadRefId: older, rowsRemoved: 1 }] });
      expect(rowsOf(older).map((row) => row.sourceId)).toEqual(['b1', 'feb']);
      expect(record(older).status).toBe('imported');
      expect(record(older).scopes?.map((scope) => [scope.billingAccountId, scope.billingPeriod])).toEqual([
        ['acc-2', expect.any(String)],
        ['acc-1', expect.any(String)],
      ]);
    });

    it('gives up its own rows in a scope a newer import already finished (imports finishing out of order)', async () => {
      const { run, upload, rowsOf } = world();
      const asked = upload([{ name: 'jan.csv', body: csvOf([{ id: 'old' }]) }]);
      const newer = upload([{ name: 'jan.csv', body: csvOf([{ id: 'new' }]) }]);
      await run(newer);
      const result = await run(asked);
      expect(result).toMatchObject({ replaced: [], outdated: [{ uploadRefId: newer, rowsRemoved: 1 }], scopes: 0 });
      expect(rowsOf(asked)).toEqual([]);
      expect(rowsOf(newer).map((row) => row.sourceId)).toEqual(['new']);
    });

    it(
      'never removes rows of an older import still running (importing, ' + 'not yet replacing): it replaces them when it finishes',
      async () => {
        const { run, upload, rowsOf, uploads } = world();
        const running = upload([{ name: 'jan.csv', body: csvOf([{ id: 'running' }]) }]);
        const mine = upload([{ name: 'jan.csv', body: csvOf([{ id: 'mine' }]) }]);
        await run(running);
        await uploads.updateOne('t1', { refId: running }, { $set: { status: 'importing', replacing: false } });
        expect(await run(mine)).toMatchObject({ replaced: [], outdated: [] });
        expect(rowsOf(running).map((row) => row.sourceId)).toEqual(['running']);
        expect(rowsOf(mine).map((row) => row.sourceId)).toEqual(['mine']);
        // when the older one finishes, the newer import's rows win
        expect(await run(running)).toMatchObject({ outdated: [{ uploadRefId: mine, rowsRemoved: 1 }] });
        expect(rowsOf(running)).toEqual([]);
        expect(rowsOf(mine).map((row) => row.sourceId)).toEqual(['mine']);
      },
    );

    it('gives up its rows to a newer import already replacing (it finished writing, not yet its record)', async () => {
      const { run, upload, rowsOf, uploads } = world();
      const older = upload([{ name: 'jan.csv', body: csvOf([{ id: 'older' }]) }]);
      const newer = upload([{ name: 'jan.csv', body: csvOf([{ id: 'newer' }]) }]);
      await run(newer);
      await uploads.updateOne('t1', { refId: newer }, { $set: { status: 'importing', replacing: true } });
      expect(await run(older)).toMatchObject({ outdated: [{ uploadRefId: newer, rowsRemoved: 1 }] });
      expect(rowsOf(older)).toEqual([]);
      expect(rowsOf(newer).map((row) => row.sourceId)).toEqual(['newer']);
    });

    it('breaks a tie of request times by upload id, so that exactly one of two imports keeps the scope', async () => {
      const { run, upload, rowsOf } = world();
      const at = new Date(Date.UTC(2024, 5, 1));
      const a = upload([{ name: 'jan.csv', body: csvOf([{ id: 'a' }]) }], { refId: 'a', importRequestedAt: at });
      const b = upload([{ name: 'jan.csv', body: csvOf([{ id: 'b' }]) }], { refId: 'b', importRequestedAt: at });
      await run(b);
      await run(a);
      expect([...rowsOf(a), ...rowsOf(b)].map((row) => row.sourceId)).toEqual(['b']);
    });

    it('leaves the rows of an older import outside the importer’s visibility in place, even in a scope it re-imports', async () => {
      const { run, upload, rowsOf, costs } = world({ visibility: { region: { $ne: 'hidden-region' } } });
      const older = upload([{ name: 'jan.csv', body: csvOf([{ id: 'r1' }]) }]);
      await run(older);
      // a row of the same scope that the importer does not see (written by someone who sees more)
      const scope = { providerName: 'AWS', billingAccountId: 'acc-1', billingPeriod: rowsOf(older)[0].billingPeriod };
      costs.docs.push({ tenantId: 't1', uploadRefId: older, ...scope, region: 'hidden-region', sourceId: 'hidden' });
      const newer = upload([{ name: 'jan.csv', body: csvOf([{ id: 'r1-new' }]) }]);
      expect(await run(newer)).toMatchObject({ replaced: [{ uploadRefId: older, rowsRemoved: 1 }] });
      expect(rowsOf(older).map((row) => row.sourceId)).toEqual(['hidden']);
    });
  });

  describe('an older upload that keeps rows outside the importer’s visibility', () => {
    it('is not superseded: it keeps the scope where its hidden rows remain, and names the newer import', async () => {
      const { run, upload, record, rowsOf, costs } = world({ visibility: { region: { $ne: 'hidden-region' } } });
      const older = upload([{ name: 'jan.csv', body: csvOf([{ id: 'r1' }]) }]);
      await run(older);
      const scope = { providerName: 'AWS', billingAccountId: 'acc-1', billingPeriod: rowsOf(older)[0].billingPeriod };
      costs.docs.push({ tenantId: 't1', uploadRefId: older, ...scope, region: 'hidden-region', sourceId: 'hidden' });
      const newer = upload([{ name: 'jan.csv', body: csvOf([{ id: 'r1-new' }]) }]);
      expect(await run(newer)).toMatchObject({ replaced: [{ uploadRefId: older, rowsRemoved: 1 }] });
      expect(rowsOf(older).map((row) => row.sourceId)).toEqual(['hidden']);
      expect(record(older)).toMatchObject({ status: 'imported', scopes: [{ ...scope, rows: 1 }], supersededBy: [newer] });
    });
  });

  describe('progress', () => {
    it('reports bytes read of the upload’s total bytes, with the rows read so far, never beyond the total', async () => {
      const { run, upload, progress } = world();
      const a = csvOf([{ id: 'r1' }, { id: 'r2' }]);
      const b = csvOf([{ id: 'r3' }, { id: 'r4' }]);
      const refId = upload([
        { name: 'a.csv', body: a },
        { name: 'b.csv', body: b },
      ]);
      await run(refId);
      const calls = progress.mock.calls;
      const total = a.length + b.length;
      expect(calls[0]).toEqual([0, total, { rows: 0 }]);
      // part by part, each part job reports its own bytes and rows (the upload's job shows their sum)
      const last = from > 0 ? [b.length, b.length, { rows: 2 }] : [total, total, { rows: 4 }];
      expect(calls[calls.length - 1]).toEqual(last);
      for (const [done, total] of calls) expect(done).toBeLessThanOrEqual(total);
    });
  });
});

describe('FocusImportPartHandler', () => {
  beforeAll(() => (partJobsFrom = 2));

  it('marks its rows with the part, and a retry removes what its earlier attempt wrote, nothing of the other parts', async () => {
    const { handler, partHandler, upload, rowsOf, progress, tracker } = world();
    const refId = upload([
      { name: 'a.csv', body: csvOf([{ id: 'a1' }, { id: 'a2' }]) },
      { name: 'b.csv', body: csvOf([{ id: 'b1' }, { id: 'b2' }, { id: 'b3' }]) },
    ]);
    const context = { tenantId: 't1', jobId: 'job', attempt: 1, progress };
    expect(await handler.run({ ...context, payload: { refId } })).toBeInstanceOf(AwaitChildren);
    await partHandler.run({ ...context, payload: { refId, partIndex: 0, generation: 1 } });
    await partHandler.run({ ...context, payload: { refId, partIndex: 1, generation: 1 } });
    // the second part's job again, as after a crash of the instance that ran it
    const again = await partHandler.run({ ...context, attempt: 2, payload: { refId, partIndex: 1, generation: 1 } });
    expect(rowsOf(refId).map((row) => [row.sourceId, row.uploadPart])).toEqual([
      ['a1', 0],
      ['a2', 0],
      ['b1', 1],
      ['b2', 1],
      ['b3', 1],
    ]);
    expect(again.result).toEqual({ part: 'b.csv', rowsRead: 3, rowsWritten: 3, rowsRejected: 0, databaseMs: expect.any(Number) });
    expect(again.handoff).toMatchObject({
      part: { name: 'b.csv', rowsWritten: 3 },
      scopes: [expect.objectContaining({ rows: 3 })],
      rollups: { generation: 1, bumps: 1, complete: true },
    });
    expect(tracker.storePart).toHaveBeenLastCalledWith(1);
  });

  it('removes its rows when it fails or is stopped', async () => {
    const { handler, partHandler, upload, rowsOf, progress } = world();
    const refId = upload([
      { name: 'a.csv', body: csvOf([{ id: 'a1' }]) },
      { name: 'b.csv', body: csvOf([{ id: 'b1' }]) },
    ]);
    const context = { tenantId: 't1', jobId: 'job', attempt: 1, progress };
    await handler.run({ ...context, payload: { refId } });
    await partHandler.run({ ...context, payload: { refId, partIndex: 0, generation: 1 } });
    await partHandler.run({ ...context, payload: { refId, partIndex: 1, generation: 1 } });
    await partHandler.onFailed({ tenantId: 't1', payload: { refId, partIndex: 1, generation: 1 } });
    expect(rowsOf(refId).map((row) => row.sourceId)).toEqual(['a1']);
    await partHandler.onTerminated({ tenantId: 't1', payload: { refId, partIndex: 0, generation: 1 } });
    expect(rowsOf(refId)).toEqual([]);
  });
});
