import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Seconds buckets from 5 ms to 30 s: HTTP requests, database operations, NATS requests. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Seconds buckets from 1 s to 2 h: jobs. */
const JOB_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200];

export type IngestionOutcome = 'read' | 'written' | 'rejected';
export type DatabaseOutcome = 'ok' | 'error' | 'timeout' | 'abandoned';

/** Counts the hits and misses of one cache (given to `InvalidatingCache`). */
export interface CacheObserver {
  hit(): void;
  miss(): void;
}

export interface QueueDepth {
  /** Messages not yet delivered. */
  pending: number;
  /** Messages delivered and not yet acknowledged (running). */
  inProgress: number;
}

/**
 * The metrics of one service, in Prometheus' text format at `GET /metrics`. One registry per
 * service instance (never the process-wide default: the e2e tests run both services in one
 * process). Every feature records with one call: `metrics.ingestionRows('gpd', counts)`,
 * `metrics.cacheObserver('currencies')`, `metrics.jobFinished(type, status, seconds)`; the HTTP
 * layer, the database connection and the message bus record their own.
 */
export class Metrics {
  readonly registry = new Registry();

  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  readonly httpInFlight: Gauge;
  readonly httpAdmissionRefusals: Counter<'bound'>;
  readonly httpAbandoned: Counter;
  readonly dbDuration: Histogram<'operation' | 'outcome'>;
  readonly dbTimeouts: Counter<'operation'>;
  readonly natsDuration: Histogram<'subject' | 'outcome'>;
  readonly natsFailures: Counter<'subject' | 'reason'>;
  readonly jobsStarted: Counter<'type'>;
  readonly jobsFinished: Counter<'type' | 'status'>;
  readonly jobDuration: Histogram<'type' | 'status'>;
  readonly jobRedeliveries: Counter<'type'>;
  readonly ingestion: Counter<'source' | 'outcome'>;
  readonly cacheRequests: Counter<'cache' | 'result'>;
  private readonly queueDepths = new Map<string, () => Promise<QueueDepth>>();

  constructor(readonly service: string) {
    const registers = [this.registry];
    this.registry.setDefaultLabels({ service });
    collectDefaultMetrics({ register: this.registry, prefix: 'corelite_' });
    this.httpDuration = new Histogram({
      name: 'corelite_http_request_duration_seconds',
      help: 'HTTP requests by route pattern and status, from the first byte read to the last byte written',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.httpInFlight = new Gauge({
      name: 'corelite_http_requests_in_flight',
      help: 'HTTP requests being served now (admitted)',
      registers,
    });
    this.httpAdmissionRefusals = new Counter({
      name: 'corelite_http_admission_refusals_total',
      help:
        'Requests refused at once (503 SERVER_BUSY) because the work in flight was ' +
        'at its bound (all: HTTP_MAX_IN_FLIGHT, heavy: HTTP_MAX_HEAVY_IN_FLIGHT)',
      labelNames: ['bound'],
      registers,
    });
    for (const bound of ['all', 'heavy']) this.httpAdmissionRefusals.inc({ bound }, 0);
    this.httpAbandoned = new Counter({
      name: 'corelite_http_requests_abandoned_total',
      help: 'Requests whose client went away before the answer; their database reads were stopped',
      registers,
    });
    this.dbDuration = new Histogram({
      name: 'corelite_db_operation_duration_seconds',
      help: 'MongoDB commands by name and outcome (ok, error, timeout: maxTimeMS expired, abandoned: its HTTP client went away)',
      labelNames: ['operation', 'outcome'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.dbTimeouts = new Counter({
      name: 'corelite_db_operation_timeouts_total',
      help: 'MongoDB commands stopped by their time limit (maxTimeMS)',
      labelNames: ['operation'],
      registers,
    });
    this.natsDuration = new Histogram({
      name: 'corelite_nats_request_duration_seconds',
      help: 'NATS requests (request/reply) by subject and outcome (ok, error)',
      labelNames: ['subject', 'outcome'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.natsFailures = new Counter({
      name: 'corelite_nats_request_failures_total',
      help: 'NATS requests that got no usable reply, by reason (not_connected, no_responder, timeout, invalid_reply, error)',
      labelNames: ['subject', 'reason'],
      registers,
    });
    this.jobsStarted = new Counter({
      name: 'corelite_jobs_started_total',
      help: 'Job attempts started, by type',
      labelNames: ['type'],
      registers,
    });
    this.jobsFinished = new Counter({
      name: 'corelite_jobs_finished_total',
      help: 'Job attempts that ended, by type and status (succeeded, failed, terminated, retried)',
      labelNames: ['type', 'status'],
      registers,
    });
    this.jobDuration = new Histogram({
      name: 'corelite_job_duration_seconds',
      help: 'Duration of job attempts by type and status',
      labelNames: ['type', 'status'],
      buckets: JOB_BUCKETS,
      registers,
    });
    this.jobRedeliveries = new Counter({
      name: 'corelite_job_redeliveries_total',
      help: 'Job messages delivered again (after a failed attempt, or a crash: no acknowledgement in time), by type',
      labelNames: ['type'],
      registers,
    });
    const depths = this.queueDepths;
    new Gauge({
      name: 'corelite_job_queue_depth',
      help: 'Messages of a work queue by state: pending (not yet delivered) or in_progress (delivered, not acknowledged)',
      labelNames: ['queue', 'state'],
      registers,
      async collect() {
        this.reset();
        for (const [queue, read] of depths) {
          const depth = await read().catch(() => undefined);
          if (!depth) continue;
          this.set({ queue, state: 'pending' }, depth.pending);
          this.set({ queue, state: 'in_progress' }, depth.inProgress);
        }
      },
    });
    this.ingestion = new Counter({
      name: 'corelite_ingestion_rows_total',
      help: 'Rows of provider data by source (gpd, focus, …) and outcome (read, written, rejected)',
      labelNames: ['source', 'outcome'],
      registers,
    });
    this.cacheRequests = new Counter({
      name: 'corelite_cache_requests_total',
      help: 'Look-ups of an in-process cache by cache and result (hit, miss)',
      labelNames: ['cache', 'result'],
      registers,
    });
  }

  /** Prometheus' text exposition format (version 0.0.4). */
  get contentType(): string {
    return this.registry.contentType;
  }

  /**
   * Samples that are not a number are left out. The event-loop lag's summary is one until the
   * loop has been measured again since the last scrape (two scrapes within its 10 ms resolution),
   * prom-client writes it `Nan`, and common parsers refuse it (or even `NaN`): a sample left out
   * is what Prometheus treats as "no value now".
   */
  async render(): Promise<string> {
    return (await this.registry.metrics()).replace(/^[^#\n][^\n]* Nan\n/gm, '');
  }

  cacheObserver(cache: string): CacheObserver {
    const hits = this.cacheRequests.labels(cache, 'hit');
    const misses = this.cacheRequests.labels(cache, 'miss');
    return { hit: () => hits.inc(), miss: () => misses.inc() };
  }

  /** Rows of one ingestion run (or part of one): `metrics.ingestionRows('gpd', { read, written, rejected })`. */
  ingestionRows(source: string, counts: Partial<Record<IngestionOutcome, number>>): void {
    for (const [outcome, rows] of Object.entries(counts)) if (rows) this.ingestion.inc({ source, outcome }, rows);
  }

  jobStarted(type: string, attempt: number): void {
    this.jobsStarted.inc({ type });
    if (attempt > 1) this.jobRedeliveries.inc({ type });
  }

  jobFinished(type: string, status: string, seconds: number): void {
    this.jobsFinished.inc({ type, status });
    this.jobDuration.observe({ type, status }, seconds);
  }

  /** Read at every scrape (a failed read leaves the queue out of that scrape). */
  watchQueueDepth(queue: string, read: () => Promise<QueueDepth>): void {
    this.queueDepths.set(queue, read);
  }

  /** Times one NATS request: call the returned function with its outcome (`undefined` when it succeeded). */
  natsRequest(subject: string): (failure?: string) => void {
    const end = this.natsDuration.startTimer({ subject });
    return (failure) => {
      end({ outcome: failure ? 'error' : 'ok' });
      if (failure) this.natsFailures.inc({ subject, reason: failure });
    };
  }

  databaseOperation(operation: string, outcome: DatabaseOutcome, seconds: number): void {
    this.dbDuration.observe({ operation, outcome }, seconds);
    if (outcome === 'timeout') this.dbTimeouts.inc({ operation });
  }
}
