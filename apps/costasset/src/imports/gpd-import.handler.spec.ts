import { Readable } from 'node:stream';
import type { Client } from 'minio';
import type { MessageBus } from '@lib/messaging';
import type { Metrics } from '@lib/metrics';
import { costCsv, metadataYml, validRows, zipOf } from '../../../../test/support/gpd-fixtures';
import type { CostassetEnvironment } from '../costasset.environment';
import type { ModuleRef } from '@nestjs/core';
import type { CoreSettingsClient } from '../feature-flags/core-settings.client';
import { CurrencyConverter } from '../currency/currency-converter';
import { UploadsRepository } from '../uploads/uploads.repository';
import type { UploadRecords } from '../uploads/upload-records';
import { ImportVisibility } from '../uploads/import-visibility';
import type { UploadAccess } from '../uploads/upload-access';
import type { Upload } from '../uploads/schemas/upload.schema';
import { CompletedWithErrors, JobContext, PermanentJobError, JobHandlerFor } from '../jobs/job-handler';
import type { AssetRepository, CostLineItemRepository, UtilizationRepository } from '../line-items/line-items.repository';
import type { RollupsService } from '../rollups/rollups.service';
import { DiscoveryGate } from './rules/discovery-gate';
import { ImportReferenceData } from './map/reference-data';
import { GpdImportHandler } from './gpd-import.handler';
import { ImportSources } from './read/import-sources';
import { ImportOutcomes } from './report/import-outcomes';
import type { ImportViews } from '../rollups/import-views';
import { ImportReplacement } from './write/import-replacement';
import { LineItemWriter } from './write/line-item-writer';
import { UploadRows } from './write/upload-rows';
import { InsertBatch } from '@lib/persistence';

/**
 * The GPD enrichment's rules, with the upload records and the line items in memory and the zip
 * served by a stub object store (range reads): what it writes and rejects, how it ends, that a
 * failed enrichment keeps none of its rows, and that each attempt replaces what an earlier one wrote.
 */

type Doc = Record<string, unknown>;

const valueAt = (doc: Doc, path: string): unknown =>
  path.split('.').reduce<unknown>((value, key) => (value == null ? undefined : (value as Doc)[key]), doc);

function matches(doc: Doc, filter: Doc): boolean {
  return Object.entries(filter).every(([key, condition]) => {
    if (key === '$and') return (condition as Doc[]).every((part) => matches(doc, part));
    const value = valueAt(doc, key);
    if (condition && typeof condition === 'object' && !Array.isArray(condition)) {
      return Object.entries(condition as Doc).every(([operator, operand]) => {
        if (operator === '$eq') return value === operand;
        if (operator === '$ne') return value !== operand;
        if (operator === '$in') return (operand as unknown[]).includes(value);
        throw new Error(`operator ${operator} not simulated`);
      });
    }
    return value === condition;
  });
}

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

  async updateOne(tenantId: string, filter: Doc, update: { $set?: Doc; $addToSet?: Doc }) {
    const found = this.docs.find((doc) => doc.tenantId === tenantId && matches(doc, filter));
    if (found) Object.assign(found, structuredClone(update.$set ?? {}));
    for (const [path, value] of Object.entries(found ? (update.$addToSet ?? {}) : {})) {
      const list = (found?.[path] as unknown[] | undefined) ?? [];
      if (!list.includes(value)) list.push(value);
      (found as Doc)[path] = list;
    }
    return found ? 1 : 0;
  }

  async deleteMany(tenantId: string, filter: Doc = {}) {
    const before = this.docs.length;
    this.docs = this.docs.filter((doc) => !(doc.tenantId === tenantId && matches(doc, filter)));
    return before - this.docs.length;
  }
}

const PERIOD = '202410';
const ACCOUNT = '111111111111';
const COST_FILE = `${PERIOD}/${ACCOUNT}/C_${ACCOUNT}_20241101T000000Z.csv`;

function world(options: { visibility?: Doc | null; discovery?: string[] | null; thresholdPercent?: number } = {}) {
  const env = {
    S3_BUCKET: 'bucket',
    GPD_BATCH_SIZE: 2,
    GPD_MAX_FILE_BYTES: 10 * 1024 * 1024,
    INGEST_REJECTED_ROWS_THRESHOLD_PERCENT: options.thresholdPercent ?? 0,
  } as CostassetEnvironment;
  const objects = new Map<string, Buffer>();
  const store = {
    statObject: jest.fn(async (_bucket: string, key: string) => {
      const body = objects.get(key);
      if (!body) throw Object.assign(new Error('Not Found'), { code: 'NotFound' });
      return { size: body.length };
    }),
    getPartialObject: jest.fn(async (_bucket: string, key: string, offset: number, length: number) =>
      Readable.from([(objects.get(key) as Buffer).subarray(offset, offset + length)]),
    ),
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
    maintenanceMs: 0,
  };
  const rollups = { track: jest.fn(() => tracker), begin: jest.fn(async () => undefined), refresh: jest.fn(async () => undefined) };
  const conversion = { corporateCurrency: 'USD', rateOf: (currency: string) => ({ USD: 1, EUR: 1.1 })[currency] };
  const reference = {
    conversion: jest.fn(async () => conversion),
    metadata: jest.fn(async () => ({ categoriesByAssetType: new Map(), locationsByRegion: new Map() })),
  };
  const settings = {
    isEnabled: jest.fn(async () => options.discovery != null),
    listValue: jest.fn(async () => options.discovery ?? []),
  };
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
  const handler = new GpdImportHandler(
    records,
    new ImportSources(store as unknown as Client, env),
    new ImportReferenceData(ports as unknown as ModuleRef, new DiscoveryGate(settings as unknown as CoreSettingsClient)),
    new LineItemWriter(
      costs as unknown as CostLineItemRepository,
      assets as unknown as AssetRepository,
      utilization as unknown as UtilizationRepository,
      rows,
      rollups as unknown as RollupsService,
      bus as unknown as MessageBus,
      env,
      views as unknown as ImportViews,
    ),
    new ImportReplacement(records, rows, views as unknown as ImportViews),
    new ImportOutcomes(records, env, { ingestionRows: jest.fn() } as unknown as Metrics),
    access as unknown as UploadAccess,
  );

  let count = 0;
  function upload(zip: Buffer, overrides: Partial<Upload> = {}): string {
    const refId = overrides.refId ?? `up-${++count}`;
    const objectKey = `tenants/t1/gpd/${refId}/aws.zip`;
    objects.set(objectKey, zip);
    uploads.docs.push({
      tenantId: 't1',
      refId,
      format: 'gpd',
      providerName: 'aws',
      fileName: 'aws.zip',
      objectKey,
      status: 'uploaded',
      rowsRead: 0,
      rowsWritten: 0,
      rowsRejected: 0,
      errors: [],
      ...overrides,
    });
    return refId;
  }
  const progress = jest.fn<Promise<void>, [number, number, { rows?: number }?]>(async () => undefined);
  const run = (refId: string, attempt = 1) => {
    const context: JobContext<{ refId: string }> = { tenantId: 't1', jobId: `job-${refId}`, payload: { refId }, attempt, progress };
    return handler.run(context);
  };
  const record = (refId: string) => uploads.docs.find((doc) => doc.refId === refId) as unknown as Upload;
  const rowsOf = (refId: string) => costs.docs.filter((doc) => doc.uploadRefId === refId);
  return { handler, run, upload, record, rowsOf, costs, assets, utilization, bus, progress, tracker };
}

const fails = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the enrichment to fail');
    },
    (error: unknown) => error as Error,
  );

const gpdZip = (rows = validRows(4), extra: Record<string, string | null> = {}) =>
  zipOf({ 'provider_metadata.yml': metadataYml(), [COST_FILE]: costCsv(PERIOD, ACCOUNT, rows), ...extra });

describe('GpdImportHandler (gpd.enrich)', () => {
  it('registers itself as the gpd.enrich job, counting progress in bytes', () => {
    const { handler } = world();
    expect(Reflect.getMetadata(JobHandlerFor.KEY, GpdImportHandler)).toBe('gpd.enrich');
    expect(handler.progressUnit).toBe('bytes');
  });

  describe('outcome', () => {
    it('writes every valid row, converted to the corporate currency, succeeds, and announces the periods', async () => {
      const { run, upload, record, rowsOf, bus } = world();
      const refId = upload(await gpdZip([{ billedCost: '10.00' }, { billedCost: '20.00', currency: 'EUR' }]));
      const result = await run(refId);
      expect(result).not.toBeInstanceOf(CompletedWithErrors);
      expect(result).toMatchObject({ rowsRead: 2, rowsWritten: 2, rowsRejected: 0, currency: 'USD', providerCode: 'AWS' });
      expect(rowsOf(refId).map((row) => row.cost)).toEqual([10, 22]);
      expect(record(refId)).toMatchObject({ status: 'enriched', rowsRead: 2, rowsWritten: 2, rowsRejected: 0 });
      expect(bus.publish).toHaveBeenCalledWith('costasset.lineitems.changed', { tenantId: 't1', periods: [PERIOD], reason: 'ingestion' });
    });

    it('rejects bad rows with file, line and every reason, writes the rest, and ends completed_with_errors', async () => {
      const { run, upload, record, rowsOf } = world();
      const refId = upload(await gpdZip([...validRows(2), { start: '01/10/2024' }, { billedCost: 'ten' }, { currency: 'JPY' }]));
      const result = await run(refId);
      expect(result).toBeInstanceOf(CompletedWithErrors);
      expect((result as CompletedWithErrors).result).toMatchObject({ rowsRead: 5, rowsWritten: 2, rowsRejected: 3 });
      expect(rowsOf(refId)).toHaveLength(2);
      expect(record(refId)).toMatchObject({ status: 'enriched_with_errors', rowsRejected: 3 });
      expect(record(refId).errors).toEqual([
        { file: COST_FILE, line: 4, reason: expect.stringContaining('ChargePeriodStart "01/10/2024" is not an ISO 8601 date') },
        { file: COST_FILE, line: 5, reason: expect.stringContaining('BilledCost "ten" is not a decimal number') },
        { file: COST_FILE, line: 6, reason: 'no exchange rate from JPY to USD' },
      ]);
    });

    it('ends plain succeeded while the rejected share stays within INGEST_REJECTED_ROWS_THRESHOLD_PERCENT', async () => {
      const { run, upload } = world({ thresholdPercent: 25 });
      const refId = upload(await gpdZip([...validRows(3), { billedCost: 'ten' }]));
      const result = await run(refId);
      expect(result).not.toBeInstanceOf(CompletedWithErrors);
      expect(result).toMatchObject({ rowsRead: 4, rowsWritten: 3, rowsRejected: 1 });
    });

    it('fails, keeping no row but keeping the report, when none of the rows could be written', async () => {
      const { run, upload, record, costs } = world();
      const refId = upload(await gpdZip([{ billedCost: 'ten', currency: 'usd' }, { billedCost: 'NULL' }]));
      const error = await fails(run(refId));
      expect(error).toBeInstanceOf(PermanentJobError);
      expect(error.message).toBe('no row could be written: 2 read, 2 rejected');
      expect(costs.docs).toEqual([]);
      expect(record(refId)).toMatchObject({ status: 'failed', rowsRead: 2, rowsWritten: 0, rowsRejected: 2 });
      expect(record(refId).errors).toHaveLength(2);
    });
  });

  describe('all or nothing', () => {
    it(
      'fails a file that is not a zip at once (no retry can help), ' + 'writing nothing; the runner’s onFailed fails the upload',
      async () => {
        const { handler, run, upload, record, costs } = world();
        const refId = upload(Buffer.from('not a zip at all'));
        const error = await fails(run(refId));
        expect(error).toBeInstanceOf(PermanentJobError);
        expect(error.message).toMatch(/^the file is not a readable zip archive/);
        expect(costs.insertBulk).not.toHaveBeenCalled();
        // the job runner calls onFailed for every PermanentJobError
        await handler.onFailed({ tenantId: 't1', payload: { refId } }, error.message);
        expect(record(refId)).toMatchObject({ status: 'failed', errors: [{ file: '', line: 0, reason: error.message }] });
      },
    );

    it('keeps the detailed report of a failed enrichment when the runner’s onFailed follows', async () => {
      const { handler, run, upload, record } = world();
      const refId = upload(await gpdZip([{ billedCost: 'ten' }]));
      const error = await fails(run(refId));
      await handler.onFailed({ tenantId: 't1', payload: { refId } }, error.message);
      expect(record(refId).errors).toEqual([{ file: COST_FILE, line: 2, reason: expect.stringContaining('BilledCost "ten"') }]);
      expect(record(refId)).toMatchObject({ rowsRead: 1, rowsRejected: 1 });
    });

    it('fails a malformed archive (no provider_metadata.yml) before writing any row', async () => {
      const { run, upload, record, costs } = world();
      const refId = upload(await zipOf({ [COST_FILE]: costCsv(PERIOD, ACCOUNT, validRows(2)) }));
      const error = await fails(run(refId));
      expect(error).toBeInstanceOf(PermanentJobError);
      expect(error.message).toMatch(/^the archive is malformed/);
      expect(costs.insertBulk).not.toHaveBeenCalled();
      expect(record(refId).status).toBe('failed');
    });

    it('removes every row an earlier attempt of the upload wrote before writing again', async () => {
      const { run, upload, rowsOf, costs, assets } = world();
      const refId = upload(await gpdZip(validRows(3)));
      costs.docs.push({ tenantId: 't1', uploadRefId: refId, leftover: true });
      assets.docs.push({ tenantId: 't1', uploadRefId: refId, leftover: true });
      await run(refId, 2);
      expect(rowsOf(refId)).toHaveLength(3);
      expect(rowsOf(refId).some((row) => row.leftover)).toBe(false);
      expect(assets.docs.some((row) => row.leftover)).toBe(false);
    });

    it('removes the rows and fails the upload, keeping the reason, when the job is terminated or fails after its retries', async () => {
      const { handler, upload, record, costs } = world();
      for (const end of ['terminated', 'failed'] as const) {
        const refId = upload(await gpdZip(), { status: 'enriching' });
        costs.docs.push({ tenantId: 't1', uploadRefId: refId });
        if (end === 'terminated') await handler.onTerminated({ tenantId: 't1', payload: { refId } });
        else await handler.onFailed({ tenantId: 't1', payload: { refId } }, 'interrupted 3 times');
        expect(costs.docs.filter((doc) => doc.uploadRefId === refId)).toEqual([]);
        expect(record(refId)).toMatchObject({
          status: 'failed',
          rowsWritten: 0,
          errors: [{ file: '', line: 0, reason: end === 'terminated' ? 'enrichment terminated on request' : 'interrupted 3 times' }],
        });
      }
    });

    it('refuses an account folder outside the importer’s visibility before reading any row', async () => {
      const { run, upload, record, costs } = world({ visibility: { billingAccountId: { $eq: 'another-account' } } });
      const refId = upload(await gpdZip());
      const error = await fails(run(refId));
      expect(error.message).toMatch(/^IMPORT_OUTSIDE_VISIBILITY/);
      expect(costs.insertBulk).not.toHaveBeenCalled();
      expect(record(refId)).toMatchObject({ status: 'failed', errors: [{ reason: expect.stringContaining(`aws/${ACCOUNT}`) }] });
    });

    it('refuses a provider COMMON_DISCOVERY does not support, with the reason, writing nothing', async () => {
      const { run, upload, record, costs } = world({ discovery: ['azure'] });
      const refId = upload(await gpdZip());
      const error = await fails(run(refId));
      expect(error).toBeInstanceOf(PermanentJobError);
      expect(error.message).toContain('COMMON_DISCOVERY is on and provider "aws" is not in SUPPORTED_CD_PROVIDERS');
      expect(costs.insertBulk).not.toHaveBeenCalled();
      expect(record(refId).status).toBe('failed');
    });

    it('fails at once for an upload that no longer exists or was cleaned', async () => {
      const { run, upload } = world();
      expect(await fails(run('missing'))).toBeInstanceOf(PermanentJobError);
      const cleaned = upload(await gpdZip(), { status: 'cleaned' });
      expect((await fails(run(cleaned))).message).toBe('the upload no longer exists');
    });
  });

  describe('replacement', () => {
    it('replaces the uploads an earlier extension flow made from the same raw file: their rows removed, superseded', async () => {
      const { run, upload, record, rowsOf } = world();
      const source = { providerCode: 'ACME', rawFile: 'raw/2024-10.zip' };
      const older = upload(await gpdZip(validRows(2)), { source });
      await run(older);
      const other = upload(await gpdZip(validRows(1)), { source: { providerCode: 'ACME', rawFile: 'raw/2024-11.zip' } });
      await run(other);
      const newer = upload(await gpdZip(validRows(3)), { source });
      expect(await run(newer)).toMatchObject({ replaced: [{ uploadRefId: older, rowsRemoved: 2 }] });
      expect(rowsOf(older)).toEqual([]);
      expect(record(older)).toMatchObject({ status: 'superseded', supersededBy: [newer] });
      expect(rowsOf(other)).toHaveLength(1);
      expect(record(other).status).toBe('enriched');
      expect(rowsOf(newer)).toHaveLength(3);
    });
  });

  describe('progress', () => {
    it('reports uncompressed bytes read of the data files’ total, with the rows read, ending at the total', async () => {
      const { run, upload, progress } = world();
      const refId = upload(await gpdZip(validRows(5)));
      await run(refId);
      const calls = progress.mock.calls;
      const total = Buffer.byteLength(costCsv(PERIOD, ACCOUNT, validRows(5)));
      expect(calls[0]).toEqual([0, total, { rows: 0 }]);
      for (const [done, all] of calls) expect(done).toBeLessThanOrEqual(all);
      expect(calls[calls.length - 1]).toEqual([total, total, { rows: 5 }]);
    });
  });
});
