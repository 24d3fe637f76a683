/** `YYYYMM` of the month `months` before the month of `now` (UTC). */
export function periodMonthsBefore(now: Date, months: number): string {
  const index = now.getUTCFullYear() * 12 + now.getUTCMonth() - months;
  const year = Math.floor(index / 12);
  const month = (index % 12) + 1;
  return `${String(year).padStart(4, '0')}${String(month).padStart(2, '0')}`;
}

export function daysBefore(now: Date, days: number): Date {
  return new Date(now.getTime() - days * 24 * 3600 * 1000);
}
