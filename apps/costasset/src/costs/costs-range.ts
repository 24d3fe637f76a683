import type { CostGranularity } from './dto/costs.query';
import { CostsProblems } from './costs.problems';

export const MAX_RANGE_MONTHS = 120;
export const MAX_RANGE_DAYS = 731;
export const DEFAULT_RANGE_MONTHS = 12;

/** What the range selects and how it is cut into buckets. */
export interface CostsRange {
  /** How the range was given: periods (YYYYMM) select by `period`, days by the UTC day of `chargePeriodStart`. */
  form: 'period' | 'day';
  from: string;
  to: string;
  granularity: CostGranularity;
  /** Every bucket of the range, in order: periods YYYYMM or days YYYY-MM-DD. */
  buckets: string[];
}

const DAY_MS = 86_400_000;
const isDay = (bound: string) => bound.length === 10;

function dayDate(day: string, field: string): Date {
  const date = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== day)
    throw CostsProblems.invalid(field, `${field} ${day} is not a day of the calendar`);
  return date;
}

const dayOf = (date: Date) => date.toISOString().slice(0, 10);
const periodOfDay = (day: string) => day.slice(0, 4) + day.slice(5, 7);
const monthIndex = (period: string) => Number(period.slice(0, 4)) * 12 + Number(period.slice(4, 6)) - 1;
const periodOfIndex = (index: number) => `${Math.floor(index / 12)}${String((index % 12) + 1).padStart(2, '0')}`;

function periodsBetween(from: string, to: string): string[] {
  const periods: string[] = [];
  for (let index = monthIndex(from); index <= monthIndex(to); index++) periods.push(periodOfIndex(index));
  return periods;
}

function daysBetween(from: Date, to: Date): string[] {
  const days: string[] = [];
  for (let time = from.getTime(); time <= to.getTime(); time += DAY_MS) days.push(dayOf(new Date(time)));
  return days;
}

/** The period `months - 1` months before `period`. */
export function periodsBefore(period: string, months: number): string {
  return periodOfIndex(monthIndex(period) - months + 1);
}

/** The current month (UTC) as YYYYMM. */
export function currentPeriod(now = new Date()): string {
  return `${now.getUTCFullYear()}${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
}

/**
 * Checks the range and lists its buckets. Without `from` and `to`, the range is the
 * DEFAULT_RANGE_MONTHS months ending with `defaultEnd` (the latest period holding data).
 */
export function resolveRange(query: { from?: string; to?: string; granularity?: CostGranularity }, defaultEnd: string): CostsRange {
  const granularity = query.granularity ?? 'month';
  if ((query.from === undefined) !== (query.to === undefined)) throw CostsProblems.range('give both from and to, or neither');
  const from = query.from ?? periodsBefore(defaultEnd, DEFAULT_RANGE_MONTHS);
  const to = query.to ?? defaultEnd;
  if (isDay(from) !== isDay(to)) throw CostsProblems.range('from and to must both be periods (YYYYMM) or both days (YYYY-MM-DD)');

  if (!isDay(from)) {
    if (to < from) throw CostsProblems.range(`to (${to}) is before from (${from})`);
    const periods = periodsBetween(from, to);
    if (periods.length > MAX_RANGE_MONTHS)
      throw CostsProblems.range(`the range spans ${periods.length} months; at most ${MAX_RANGE_MONTHS}`);
    if (granularity === 'month') return { form: 'period', from, to, granularity, buckets: periods };
    const firstDay = new Date(Date.UTC(Number(from.slice(0, 4)), Number(from.slice(4, 6)) - 1, 1));
    const lastDay = new Date(Date.UTC(Number(to.slice(0, 4)), Number(to.slice(4, 6)), 0));
    const days = daysBetween(firstDay, lastDay);
    if (days.length > MAX_RANGE_DAYS)
      throw CostsProblems.range(
        `daily buckets over ${periods.length} months make ${days.length} days; ` +
          `at most ${MAX_RANGE_DAYS} (choose granularity=month or a shorter range)`,
      );
    return { form: 'period', from, to, granularity, buckets: days };
  }

  const first = dayDate(from, 'from');
  const last = dayDate(to, 'to');
  if (last < first) throw CostsProblems.range(`to (${to}) is before from (${from})`);
  const days = daysBetween(first, last);
  if (days.length > MAX_RANGE_DAYS) throw CostsProblems.range(`the range spans ${days.length} days; at most ${MAX_RANGE_DAYS}`);
  const buckets = granularity === 'day' ? days : periodsBetween(periodOfDay(from), periodOfDay(to));
  return { form: 'day', from, to, granularity, buckets };
}

/** The line items a range selects. */
export function rangeFilter(range: CostsRange): Record<string, unknown> {
  if (range.form === 'period') return { period: { $gte: range.from, $lte: range.to } };
  return {
    chargePeriodStart: { $gte: new Date(`${range.from}T00:00:00Z`), $lt: new Date(new Date(`${range.to}T00:00:00Z`).getTime() + DAY_MS) },
  };
}

/** The bucket of a line item: its period, or the UTC day (or month) of its charge period start. */
export function bucketExpression(range: CostsRange): unknown {
  if (range.granularity === 'month' && range.form === 'period') return '$period';
  const format = range.granularity === 'day' ? '%Y-%m-%d' : '%Y%m';
  // MongoDB formats dates in UTC when no timezone is given
  return { $dateToString: { format, date: '$chargePeriodStart' } };
}

/** The bucket of a row grouped by a day's start (a date): the day, or its month. */
export function dayBucket(start: Date, granularity: CostGranularity): string {
  const day = dayOf(start);
  return granularity === 'day' ? day : periodOfDay(day);
}

/**
 * `bucketExpression` over rows that each hold one UTC day, whose `chargePeriodStart` is that day's midnight: the date itself, named
 * by `dayBucket`.
 */
export function dayRowsBucket(range: CostsRange): unknown {
  const bucket = bucketExpression(range);
  return bucket === '$period' ? bucket : '$chargePeriodStart';
}
