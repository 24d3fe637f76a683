import type { CostassetEnvironment } from '../costasset.environment';
import type { PipelineStage } from 'mongoose';
import { AllocationModel } from '../allocation/allocation-model';
import { ProviderIdentity } from '../allocation/provider-identity';
import type { CurrencyService } from '../currency/currency.service';
import { keyedJobId } from '../jobs/jobs.service';
import type { JobsService } from '../jobs/jobs.service';
import type { MessageBus } from '@lib/messaging';
import { dayNumber, isoDateOf } from '../forecasting/seasonal-model';
import { DEFAULT_ANOMALY_PARAMETERS } from '../forecasting/anomaly-detection';
import type { Notifier } from '../notifications/notifier';
import type { RollupPlanner } from '../rollups/rollup-planner';
import { MATCH_NOTHING } from '../resource-groups/visibility.service';
import { AnomalyDetector } from './anomaly-detector';
import { AnomalyJobs } from './anomaly-jobs';
import { buildSeries, DailyRow, seriesKeyOf, SERIES_DIMENSIONS } from './anomaly-series';
import type { AnomalySettingsService } from './anomaly-settings.service';
import { anomalyVisibility } from './anomaly-visibility';
import type { AnomalyFigures, AnomalyRepository } from './anomaly.repository';
import type { Anomaly } from './schemas/anomaly.schema';

const LAST = dayNumber('2026-03-31');
const DAYS = 70;
const SPIKE_DAY = isoDateOf(LAST - 3);

/** Steady daily costs (a weekday pattern, a little noise) for two series; a spike on one day of the first. */
function rows(spike = true): DailyRow[] {
  const out: DailyRow[] = [];
  for (let day = LAST - DAYS + 1; day <= LAST; day++) {
    const weekday = ((day % 7) + 7) % 7;
    const wobble = ((day * 7919) % 11) - 5;
    const compute = 500 + (weekday === 2 ? -100 : 0) + wobble + (spike && isoDateOf(day) === SPIKE_DAY ? 900 : 0);
    const d = new Date(day * 86_400_000);
    out.push({ _id: { d, providerName: 'aws', billingAccountId: 'a1', serviceName: 'Compute' }, cost: compute });
    out.push({ _id: { d, providerName: 'aws', billingAccountId: 'a1', serviceName: 'Storage' }, cost: 200 + wobble / 2 });
  }
  return out;
}

/** The repository's contract in memory: unique per series and day, open ones updated, others kept. */
class MemoryAnomalies {
  readonly records: (Anomaly & { _id: string })[] = [];
  async record(tenantId: string, figures: AnomalyFigures, runId: string): Promise<'created' | 'updated' | 'kept'> {
    const existing = this.records.find((one) => one.seriesKey === figures.seriesKey && one.day === figures.day);
    if (existing?.status === 'open') {
      Object.assign(existing, { ...figures, detectionRunId: runId });
      return 'updated';
    }
    if (existing) return 'kept';
    this.records.push({ _id: String(this.records.length), tenantId, ...figures, status: 'open', detectionRunId: runId, firstRunId: runId });
    return 'created';
  }
  async find(_tenantId: string, filter: { firstRunId: string }) {
    return this.records.filter((one) => one.firstRunId === filter.firstRunId);
  }
}

function detector(data: (pipeline: PipelineStage[]) => DailyRow[], allocation = AllocationModel.EMPTY) {
  const anomalies = new MemoryAnomalies();
  const notify = jest.fn().mockResolvedValue(2);
  const planner = {
    view: jest.fn().mockResolvedValue({ rollupsReady: true, exclusion: {}, allocation, providers: ProviderIdentity.NONE }),
    choose: jest.fn().mockResolvedValue({ source: 'rollup', rollupLevel: 'day' }),
    aggregate: jest.fn(async (_tenantId: string, _where: unknown, pipeline: PipelineStage[]) => data(pipeline)),
  };
  const settings = { parameters: jest.fn().mockResolvedValue(DEFAULT_ANOMALY_PARAMETERS) };
  const currency = { currencies: jest.fn().mockResolvedValue({ defaultCurrency: 'EUR' }) };
  const env = { consoleUrl: 'https://costs.example.com' } as CostassetEnvironment;
  const service = new AnomalyDetector(
    planner as unknown as RollupPlanner,
    anomalies as unknown as AnomalyRepository,
    settings as unknown as AnomalySettingsService,
    currency as unknown as CurrencyService,
    env,
    { notify } as unknown as Notifier,
  );
  return { service, anomalies, notify, planner };
}

const importRun = (runId: string) => ({ tenantId: 't1', runId, trigger: 'import' as const, periods: ['202602', '202603'] });

describe('daily series', () => {
  it('cuts rows by every dimension into consecutive days, zeros where a day has none, keyed canonically', () => {
    const d = (day: string) => new Date(`${day}T00:00:00Z`);
    const series = buildSeries(
      [
        { _id: { d: d('2026-03-01'), providerName: 'aws', billingAccountId: 'a', serviceName: null }, cost: 5 },
        { _id: { d: '2026-03-03', providerName: 'aws', billingAccountId: 'a', serviceName: null }, cost: 7 },
        { _id: { d: d('2026-03-03'), providerName: 'gcp', billingAccountId: 'b', serviceName: 'X' }, cost: 1 },
      ],
      SERIES_DIMENSIONS,
      dayNumber('2026-03-04'),
    );
    expect(series).toHaveLength(2);
    const aws = series.find((one) => one.dimensions.providerName === 'aws')!;
    expect(aws.dimensions).toEqual({ providerName: 'aws', billingAccountId: 'a', serviceName: null });
    expect(Array.from(aws.values)).toEqual([5, 0, 7, 0]);
    expect(aws.key).toBe(seriesKeyOf({ serviceName: null, billingAccountId: 'a', providerName: 'aws' }));
    expect(series.find((one) => one.dimensions.providerName === 'gcp')!.values.length).toBe(2);
  });
});

describe('a detection run', () => {
  it('records the spike on its day and series and sends one message for the run, keyed by the run', async () => {
    const { service, anomalies, notify, planner } = detector(() => rows());
    const result = await service.run(importRun('run-1'));
    expect(planner.choose.mock.calls[0][2]).toEqual(['providerName', 'billingAccountId', 'serviceName', 'cost', 'chargePeriodStart']);
    expect(result).toMatchObject({ series: 2, created: 1, announced: 1, deliveries: 2, scoredTo: isoDateOf(LAST) });
    expect(anomalies.records.map((one) => [one.dimensions.serviceName, one.day])).toEqual([['Compute', SPIKE_DAY]]);
    expect(notify).toHaveBeenCalledTimes(1);
    const [tenantId, topic, message, key] = notify.mock.calls[0];
    expect([tenantId, topic, key]).toEqual(['t1', { kind: 'anomalies' }, 'anomalies:run-1']);
    expect(message.link).toBe('https://costs.example.com/anomalies');
    expect(message.facts[0].label).toBe(`aws / a1 / Compute on ${SPIKE_DAY}`);
    expect(message.facts[0].value).toMatch(/^1,[34]\d\d\.\d\d EUR against [345]\d\d\.\d\d EUR expected \(\+\d{3}\.\d\d EUR\)$/);
    expect(message.data.anomalies).toHaveLength(1);
  });

  it('also cuts series by each virtual dimension and activated tag key, read from the rollups', async () => {
    const allocation = new AllocationModel({
      revision: 1,
      tagKeys: [
        { group: 'team', key: 'owner' },
        { group: null, key: 'env' },
      ],
      dimensions: [{ name: 'team', rules: [{ expr: "serviceName == 'Compute'", value: 'payments' }], defaultValue: 'unallocated' }],
    });
    // the base monitor's rows, and for the others the same costs under the monitor's one name
    const { service, anomalies, planner } = detector((pipeline) => {
      const group = (pipeline[1] as { $group: { _id: Record<string, unknown> } }).$group._id;
      const name = Object.keys(group).find((key) => key !== 'd' && !(SERIES_DIMENSIONS as string[]).includes(key));
      if (!name) return rows();
      return rows().map((row) => ({
        _id: { d: row._id.d, [name]: row._id.serviceName === 'Compute' ? 'payments' : 'other' },
        cost: row.cost,
      }));
    }, allocation);
    const result = await service.run(importRun('run-1'));
    expect(planner.choose.mock.calls.map((call) => call[2].slice(0, -2))).toEqual([
      ['providerName', 'billingAccountId', 'serviceName'],
      ['dimensions.team'],
      ['tags["team","owner"]'],
    ]);
    expect(result).toMatchObject({ series: 6, created: 3 });
    expect(anomalies.records.map((one) => one.dimensions)).toEqual([
      { providerName: 'aws', billingAccountId: 'a1', serviceName: 'Compute' },
      { 'dimension:team': 'payments' },
      { 'tag:team:owner': 'payments' },
    ]);
  });

  it('announces only new anomalies: a later run updates an open one without a message', async () => {
    const { service, anomalies, notify } = detector(() => rows());
    await service.run(importRun('run-1'));
    const again = await service.run(importRun('run-2'));
    expect(again).toMatchObject({ created: 0, updated: 1, announced: 0, deliveries: 0 });
    expect(notify).toHaveBeenCalledTimes(1);
    expect(anomalies.records[0]).toMatchObject({ detectionRunId: 'run-2', firstRunId: 'run-1', status: 'open' });
  });

  it('never raises a dismissed or acknowledged anomaly again', async () => {
    for (const status of ['dismissed', 'acknowledged'] as const) {
      const { service, anomalies, notify } = detector(() => rows());
      await service.run(importRun('run-1'));
      anomalies.records[0].status = status;
      const figures = { ...anomalies.records[0] };
      const again = await service.run({ tenantId: 't1', runId: 'daily-1', trigger: 'daily', day: isoDateOf(LAST) });
      expect(again).toMatchObject({ kept: 0, announced: 0 });
      const imported = await service.run(importRun('run-3'));
      expect(imported).toMatchObject({ kept: 1, created: 0, announced: 0 });
      expect(anomalies.records).toEqual([figures]);
      expect(notify).toHaveBeenCalledTimes(1);
    }
  });

  it('a retry of the same run sends the same message under the same key (the notifier sends it once)', async () => {
    const { service, notify } = detector(() => rows());
    await service.run(importRun('run-1'));
    await service.run(importRun('run-1'));
    expect(notify).toHaveBeenCalledTimes(2);
    expect(notify.mock.calls[1][3]).toBe('anomalies:run-1');
    expect(notify.mock.calls[1][2]).toEqual(notify.mock.calls[0][2]);
  });

  it('finds nothing on steady costs, and the daily run scores only the latest days', async () => {
    const steady = detector(() => rows(false));
    expect(await steady.service.run(importRun('run-1'))).toMatchObject({ found: 0, announced: 0 });
    expect(steady.notify).not.toHaveBeenCalled();
    const daily = detector(() => rows());
    const result = await daily.service.run({ tenantId: 't1', runId: 'd', trigger: 'daily', day: isoDateOf(LAST) });
    expect(result).toMatchObject({ scoredFrom: isoDateOf(LAST - 2), scoredTo: isoDateOf(LAST), found: 0 });
  });
});

describe('anomaly visibility', () => {
  it('applies groups that decide on the series dimensions, drops the others, and shows nothing on MATCH_NOTHING', () => {
    expect(anomalyVisibility(null)).toEqual({});
    const base = { 'dimensions.providerName': { $exists: true } };
    expect(anomalyVisibility({ providerName: 'aws' })).toEqual({ $and: [base, { 'dimensions.providerName': 'aws' }] });
    expect(anomalyVisibility({ $or: [{ billingAccountId: { $in: ['a'] } }, { region: 'eu' }] })).toEqual({
      $and: [base, { 'dimensions.billingAccountId': { $in: ['a'] } }],
    });
    // a group over one virtual dimension decides on that dimension's series only
    const team = { 'dimensions.team': { $ne: 'payments' } };
    expect(anomalyVisibility(team)).toEqual({
      $and: [{ 'dimensions.dimension:team': { $exists: true } }, { 'dimensions.dimension:team': { $ne: 'payments' } }],
    });
    expect(anomalyVisibility({ $and: [team, { providerName: 'aws' }] })).toEqual({ _id: { $in: [] } });
    expect(anomalyVisibility({ region: { $ne: 'eu' } })).toEqual({ _id: { $in: [] } });
    expect(anomalyVisibility(MATCH_NOTHING)).toEqual({ _id: { $in: [] } });
  });
});

describe('detection jobs', () => {
  function jobs() {
    const submitted: string[] = [];
    const service = {
      register: jest.fn(),
      get: jest.fn().mockResolvedValue({ status: 'queued' }),
      submit: jest.fn(),
      submitOnce: jest.fn(async (_t: string, _type: string, _p: unknown, key: string) => {
        if (submitted.includes(key)) return false;
        submitted.push(key);
        return true;
      }),
    };
    const settings = { imported: jest.fn(), tenantsImportedSince: jest.fn().mockResolvedValue(['t1', 't2']) };
    const handler = new AnomalyJobs(
      service as unknown as JobsService,
      {} as MessageBus,
      {} as AnomalyDetector,
      settings as unknown as AnomalySettingsService,
    );
    return { handler, submitted, service };
  }

  it('queues one daily run per tenant and day however many instances ask', async () => {
    const one = jobs();
    const now = Date.parse('2026-04-01T10:00:00Z');
    expect(await one.handler.daily(now)).toBe(2);
    expect(await one.handler.daily(now + 3600_000)).toBe(0);
    expect(one.submitted).toEqual(['anomalies:t1:2026-04-01', 'anomalies:t2:2026-04-01']);
  });

  it('names an import run by tenant, periods and time slot, so the instances receiving its event queue one', async () => {
    const one = jobs();
    const now = Date.parse('2026-04-01T10:00:00Z');
    expect(await one.handler.afterImport('t1', ['202603', '202602'], now)).toBe(true);
    expect(await one.handler.afterImport('t1', ['202602', '202603'], now + 5)).toBe(false);
    expect(await one.handler.afterImport('t1', ['202602', '202603'], now + 60_000)).toBe(true);
    // another import of the same periods in the same slot, after the slot's job ended, gets a job of its own
    one.service.get.mockResolvedValue({ status: 'succeeded' });
    expect(await one.handler.afterImport('t1', ['202602', '202603'], now + 7)).toBe(true);
    expect(one.service.submit).toHaveBeenCalledWith('t1', 'anomalies.detect', { trigger: 'import', periods: ['202602', '202603'] });
  });

  it('derives a stable UUID from a job key', () => {
    expect(keyedJobId('anomalies:t1:2026-04-01')).toBe(keyedJobId('anomalies:t1:2026-04-01'));
    expect(keyedJobId('anomalies:t1:2026-04-01')).not.toBe(keyedJobId('anomalies:t2:2026-04-01'));
    expect(keyedJobId('x')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
