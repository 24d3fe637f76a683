/** YYYYMM periods from `start` to `end`, inclusive. */
export function periodsBetween(start: string, end: string): string[] {
  const periods: string[] = [];
  let year = Number(start.slice(0, 4));
  let month = Number(start.slice(4, 6));
  const last = Number(end);
  while (year * 100 + month <= last && periods.length < 1200) {
    periods.push(`${year}${String(month).padStart(2, '0')}`);
    month += 1;
    if (month === 13) {
      month = 1;
      year += 1;
    }
  }
  return periods;
}

/** YYYYMM of a date (UTC). */
export const periodOfDate = (date: Date): string => date.toISOString().slice(0, 7).replace('-', '');

/** `period` moved by `months` (YYYYMM). */
export function addMonths(period: string, months: number): string {
  const at = Number(period.slice(0, 4)) * 12 + Number(period.slice(4, 6)) - 1 + months;
  return `${Math.floor(at / 12)}${String((at % 12) + 1).padStart(2, '0')}`;
}
