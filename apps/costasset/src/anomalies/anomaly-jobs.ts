import { JOB_TYPES } from '../jobs/job-types';
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { MessageBus } from '@lib/messaging';
import { JobContext, JobHandler, JobHandlerFor } from '../jobs/job-handler';
import { JobsService, keyedJobId } from '../jobs/jobs.service';
import { FINAL_JOB_STATUSES } from '../jobs/schemas/job.schema';
import { AnomalyDetector, DetectionRequest } from './anomaly-detector';
import { AnomalySettingsService } from './anomaly-settings.service';

/** The timer of every instance: it asks for each tenant's run of the day, which runs once whatever the instances. */
export const DAILY_CHECK_MS = 60 * 60 * 1000;
const FIRST_CHECK_MS = 60 * 1000;
/** Instances receive one import's event within milliseconds: its run is named by the event and this slot of time. */
export const IMPORT_SLOT_MS = 10_000;
/** The daily run covers the tenants that imported data within this many days. */
export const DAILY_TENANT_DAYS = 400;

type DetectionPayload = Pick<DetectionRequest, 'trigger' | 'periods' | 'day'>;

const isoDay = (time: number) => new Date(time).toISOString().slice(0, 10);

/**
 * Runs anomaly detection as jobs (`anomalies.detect`, docs/anomalies.md): after each import (the
 * `costasset.lineitems.changed` event of an ingestion, received by every instance) and once a day
 * per tenant. Both job ids derive from a key (`JobsService.submitOnce`), so that the instances
 * receiving the same event or running the same timer queue one job: `anomalies:<tenant>:<day>` for
 * the daily run, the tenant, periods and a 10-second slot for an import (a second import of the
 * same periods in the same slot, once the slot's job has ended, queues a job of its own).
 */
@Injectable()
@JobHandlerFor(JOB_TYPES.anomalyDetection)
export class AnomalyJobs implements JobHandler<DetectionPayload>, OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  readonly progressUnit = 'series' as const;
  private readonly logger = new Logger('AnomalyJobs');
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly jobs: JobsService,
    private readonly bus: MessageBus,
    private readonly detector: AnomalyDetector,
    private readonly settings: AnomalySettingsService,
  ) {}

  onModuleInit(): void {
    void this.bus
      .subscribe('costasset.lineitems.changed', (event) =>
        event.reason === 'ingestion' ? this.afterImport(event.tenantId, event.periods).then(() => undefined) : undefined,
      )
      .catch((error: unknown) => this.logger.error({ err: error }, 'cannot subscribe to line-item changes'));
  }

  onApplicationBootstrap(): void {
    this.timer = setTimeout(() => this.tick(), FIRST_CHECK_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearTimeout(this.timer);
  }

  private tick(): void {
    void this.daily().catch((error: unknown) => this.logger.error({ err: error }, 'daily anomaly detection not queued'));
    this.timer = setTimeout(() => this.tick(), DAILY_CHECK_MS);
    this.timer.unref();
  }

  /** Queues the detection of an import's periods; answers whether this instance queued it. */
  async afterImport(tenantId: string, periods: string[], now = Date.now()): Promise<boolean> {
    await this.settings.imported(tenantId, new Date(now));
    if (periods.length === 0) return false;
    const sorted = [...new Set(periods)].sort();
    const slot = Math.floor(now / IMPORT_SLOT_MS);
    const key = `anomalies:${tenantId}:import:${sorted.join(',')}:${slot}`;
    const payload = { trigger: 'import', periods: sorted };
    if (await this.jobs.submitOnce(tenantId, JOB_TYPES.anomalyDetection, payload, key)) return true;
    // the slot's job has already run: this is another import of the same periods, which it did not see
    const earlier = await this.jobs.get(tenantId, keyedJobId(key));
    if (!earlier || !FINAL_JOB_STATUSES.includes(earlier.status)) return false;
    await this.jobs.submit(tenantId, JOB_TYPES.anomalyDetection, payload);
    return true;
  }

  /** Queues today's run of every tenant that imported data (once per tenant and day, whatever the instances). */
  async daily(now = Date.now()): Promise<number> {
    const day = isoDay(now);
    let queued = 0;
    for (const tenantId of await this.settings.tenantsImportedSince(new Date(now - DAILY_TENANT_DAYS * 86_400_000))) {
      const key = `anomalies:${tenantId}:${day}`;
      if (await this.jobs.submitOnce(tenantId, JOB_TYPES.anomalyDetection, { trigger: 'daily', day }, key)) queued++;
    }
    return queued;
  }

  async run(context: JobContext<DetectionPayload>): Promise<Record<string, unknown>> {
    const { trigger, periods, day } = context.payload;
    const result = await this.detector.run({ tenantId: context.tenantId, runId: context.jobId, trigger, periods, day }, (done, total) =>
      context.progress(done, total),
    );
    return { ...result };
  }
}
