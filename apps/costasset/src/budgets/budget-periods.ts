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
