import { Cron } from 'croner';
import type { ConnectionSchedule } from './schemas/connection.schema';

/** Why a schedule cannot run: an invalid cron expression or time zone, or neither or both of cron and interval. */
export function scheduleProblem(schedule: Partial<ConnectionSchedule>): string | undefined {
  const hasCron = schedule.cron !== undefined;
  if (hasCron === (schedule.intervalMinutes !== undefined)) return 'give either cron or intervalMinutes';
  const timezone = schedule.timezone ?? 'UTC';
  try {
    new Intl.DateTimeFormat('en', { timeZone: timezone });
  } catch {
    return `${timezone} is not an IANA time zone`;
  }
  if (!hasCron) return undefined;
  if ((schedule.cron ?? '').split(/\s+/).length !== 5) return 'cron takes five fields: minute hour day-of-month month day-of-week';
  try {
    new Cron(schedule.cron ?? '', { timezone, paused: true }).nextRun();
  } catch (error) {
    return `cron: ${(error as Error).message}`;
  }
  return undefined;
}

/** When a schedule runs next after `after` (null for a cron expression that never runs again). */
export function nextRunOf(schedule: ConnectionSchedule, after: Date): Date | null {
  if (schedule.intervalMinutes !== undefined) return new Date(after.getTime() + schedule.intervalMinutes * 60_000);
  return new Cron(schedule.cron ?? '', { timezone: schedule.timezone, paused: true }).nextRun(after);
}
