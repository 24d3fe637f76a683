const moneyFormats = new Map<string, Intl.NumberFormat>();

/** Money for display: rounded here, and only here (the API never rounds). */
export function money(amount: number, currency: string | null | undefined, compact = false): string {
  const key = `${currency ?? ''}:${compact}`;
  let format = moneyFormats.get(key);
  if (!format) {
    format = new Intl.NumberFormat('en-US', {
      ...(currency ? { style: 'currency', currency } : { minimumFractionDigits: 2 }),
      maximumFractionDigits: compact ? 1 : 2,
      ...(compact ? { notation: 'compact' } : {}),
    });
    moneyFormats.set(key, format);
  }
  return format.format(amount);
}

export const number = (value: number) => new Intl.NumberFormat('en-US').format(value);

/** A size in bytes: `512 B`, `1.5 KB`, `12 MB` (binary units; one decimal under 10). */
export function bytes(value: number): string {
  if (value < 1024) return `${number(value)} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let scaled = value / 1024;
  let unit = 0;
  while (scaled >= 1024 && unit < units.length - 1) {
    scaled /= 1024;
    unit++;
  }
  return `${scaled.toFixed(scaled < 10 ? 1 : 0)} ${units[unit]}`;
}

export function percent(value: number, digits = 1): string {
  return `${value.toFixed(digits)}%`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const LONG_MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** `202410` → `Oct 2024` (or `October 2024`); a day `2024-10-05` → `Oct 5`. */
export function bucketLabel(bucket: string, long = false): string {
  if (/^\d{6}$/.test(bucket)) return `${(long ? LONG_MONTHS : MONTHS)[Number(bucket.slice(4)) - 1]} ${bucket.slice(0, 4)}`;
  if (/^\d{4}-\d{2}-\d{2}$/.test(bucket)) return `${MONTHS[Number(bucket.slice(5, 7)) - 1]} ${Number(bucket.slice(8))}`;
  return bucket;
}

export function dateTime(value: string | undefined): string {
  if (!value) return '—';
  return new Date(value).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' });
}

/** YYYYMM of a date, `months` months before it (UTC). */
export function periodOf(date: Date, monthsBefore = 0): string {
  const shifted = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - monthsBefore, 1));
  return `${shifted.getUTCFullYear()}${String(shifted.getUTCMonth() + 1).padStart(2, '0')}`;
}

export function previousPeriod(period: string): string {
  return periodOf(new Date(Date.UTC(Number(period.slice(0, 4)), Number(period.slice(4)) - 1, 1)), 1);
}

/** The label of a series key: its values joined, `(none)` for a missing value. */
export function seriesLabel(key: Record<string, string | null>, other?: boolean): string {
  if (other) return 'Other';
  const values = Object.values(key);
  if (values.length === 0) return 'Total';
  return values.map((value) => value ?? '(none)').join(' · ');
}
