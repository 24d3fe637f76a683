import { Injectable, Logger } from '@nestjs/common';
import { CostassetEnvironment } from '../costasset.environment';
import { CurrencyService } from '../currency/currency.service';
import { dayNumber, isoDateOf } from '../forecasting/seasonal-model';
import { Notifier } from '../notifications/notifier';
import { answeredFrom, RollupPlanner } from '../rollups/rollup-planner';
import { anomaliesMessage } from './anomaly-message';
import { buildSeries, dailySeriesPipeline, DailyRow, LINE_ITEM_DAY, scoreSeries, seriesMonitors, seriesRead } from './anomaly-series';
import { AnomalySettingsService } from './anomaly-settings.service';
import { AnomalyRepository } from './anomaly.repository';

/** An import scores the days of its periods, at most this many days back from the latest day with data. */
export const IMPORT_SCORED_DAYS = 35;
/** The daily run scores the latest days with data (data of the last days often arrives late). */
export const DAILY_SCORED_DAYS = 3;

export interface DetectionRequest {
  tenantId: string;
  /** Names the run: the records it creates and its message (`anomalies:<runId>`). */
  runId: string;
  trigger: 'import' | 'daily';
  /** The periods (`YYYYMM`) an import changed. */
  periods?: string[];
  /** The day the daily run is for (`YYYY-MM-DD`, UTC): the latest day it may score. */
  day?: string;
}

export interface DetectionResult {
  series: number;
  /** The days scored, `YYYY-MM-DD`; null when there was nothing to score. */
  scoredFrom: string | null;
  scoredTo: string | null;
  source: string;
  found: number;
  created: number;
  updated: number;
  /** Found again on a day already acknowledged or dismissed: left as it is. */
  kept: number;
  /** Anomalies the run's message announced (its own new ones), and the deliveries queued. */
  announced: number;
  deliveries: number;
}

const periodFirstDay = (period: string) => dayNumber(`${period.slice(0, 4)}-${period.slice(4, 6)}-01`);
const periodLastDay = (period: string) => {
  const year = Number(period.slice(0, 4));
  const month = Number(period.slice(4, 6));
  return Math.floor(Date.UTC(year, month, 1) / 86_400_000) - 1;
};
const today = () => Math.floor(Date.now() / 86_400_000);

function latestDay(rows: DailyRow[], notAfter: number): number | null {
  let latest: number | null = null;
  for (const row of rows) {
    const { d } = row._id;
    const day = d instanceof Date ? Math.floor(d.getTime() / 86_400_000) : typeof d === 'string' ? dayNumber(d) : null;
    if (day !== null && day <= notAfter && (latest === null || day > latest)) latest = day;
  }
  return latest;
}

/**
 * One detection run (docs/anomalies.md): the daily cost of every series (provider × billing
 * account × service) from the rollups, the days to score against the model fitted on the window
 * before each, each anomaly recorded once per series and day, and one message listing the
 * anomalies this run found first.
 */
@Injectable()
export class AnomalyDetector {
  private readonly logger = new Logger('AnomalyDetector');

  constructor(
    private readonly planner: RollupPlanner,
    private readonly anomalies: AnomalyRepository,
    private readonly settings: AnomalySettingsService,
    private readonly currency: CurrencyService,
    private readonly env: CostassetEnvironment,
    private readonly notifier: Notifier,
  ) {}

  /** The range read: the days that may be scored and the window before the first of them. */
  private range(request: DetectionRequest, windowDays: number): { from: number; to: number; earliestScored: number } | null {
    if (request.trigger === 'daily') {
      const to = request.day ? dayNumber(request.day) : today();
      return { from: to - IMPORT_SCORED_DAYS - windowDays, to, earliestScored: -Infinity };
    }
    const periods = (request.periods ?? []).filter((period) => /^\d{6}$/.test(period)).sort();
    if (periods.length === 0) return null;
    const to = Math.min(periodLastDay(periods.at(-1)!), today() + 1);
    const earliestScored = periodFirstDay(periods[0]);
    return { from: Math.max(earliestScored, to - IMPORT_SCORED_DAYS) - windowDays, to, earliestScored };
  }

  async run(request: DetectionRequest, progress?: (done: number, total: number) => Promise<void>): Promise<DetectionResult> {
    const { tenantId, runId } = request;
    const parameters = await this.settings.parameters(tenantId);
    const result: DetectionResult = {
      series: 0,
      scoredFrom: null,
      scoredTo: null,
      source: 'none',
      found: 0,
      created: 0,
      updated: 0,
      kept: 0,
      announced: 0,
      deliveries: 0,
    };
    const range = this.range(request, parameters.windowDays);
    if (!range) return result;

    const match = {
      chargePeriodStart: { $gte: new Date(range.from * 86_400_000), $lt: new Date((range.to + 1) * 86_400_000) },
    };
    const view = await this.planner.view(tenantId);
    const monitors = await Promise.all(
      seriesMonitors(view.allocation).map(async (names) => {
        const where = await this.planner.choose(tenantId, match, [...names.map(seriesRead), 'cost', 'chargePeriodStart'], view);
        const day = where.source === 'rollup' ? '$chargePeriodStart' : LINE_ITEM_DAY;
        const rows = await this.planner.aggregate<DailyRow>(tenantId, where, dailySeriesPipeline(match, names, day), view);
        return { names, rows, source: answeredFrom(where) };
      }),
    );
    result.source = monitors[0].source;
    const base = monitors[0].rows;
    if (base.length === 0) return result;

    // the latest day holding data: the series end there, and the scored days are counted back from it
    const lastWithData = latestDay(base, range.to);
    if (lastWithData === null) return result;
    const back = request.trigger === 'daily' ? DAILY_SCORED_DAYS : IMPORT_SCORED_DAYS;
    const scoredFrom = Math.max(range.earliestScored, lastWithData - back + 1);
    result.scoredFrom = isoDateOf(scoredFrom);
    result.scoredTo = isoDateOf(lastWithData);

    const series = monitors.flatMap(({ names, rows }) => buildSeries(rows, names, lastWithData));
    result.series = series.length;
    for (const [index, one] of series.entries()) {
      for (const figures of scoreSeries(one, scoredFrom, parameters)) {
        result.found++;
        result[await this.anomalies.record(tenantId, figures, runId)]++;
      }
      if (progress && (index % 500 === 499 || index === series.length - 1)) await progress(index + 1, series.length);
    }

    // the run's own new anomalies, also those an earlier attempt of the same run created
    const announced = await this.anomalies.find(tenantId, { firstRunId: runId }, { sort: { impact: -1 }, limit: 1000 });
    result.announced = announced.length;
    if (announced.length > 0) {
      const { defaultCurrency } = await this.currency.currencies(tenantId);
      const message = anomaliesMessage(announced, { runId, currency: defaultCurrency, consoleUrl: this.env.consoleUrl });
      result.deliveries = await this.notifier.notify(tenantId, { kind: 'anomalies' }, message, `anomalies:${runId}`);
    }
    this.logger.log({ tenantId, runId, trigger: request.trigger, ...result }, 'anomaly detection run');
    return result;
  }
}
