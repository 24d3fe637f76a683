/**
 * How one cell of a billing file is read, whatever the file: a GPD cost CSV, a raw CSV mapped by
 * an extension, a FOCUS CSV or a FOCUS Parquet file. CSV cells are strings; Parquet cells may be
 * numbers, bigints, booleans, Dates or objects (MAP columns). Every reader answers `undefined`
 * for a null cell and throws a `CellError` naming what is wrong otherwise.
 */
export type Cell = string | number | bigint | boolean | Date | object | null | undefined;
export type CellRow = Record<string, Cell>;

export class CellError extends Error {}

/** Empty cells, cells of blanks and the literal text `NULL` (any case) are null. */
export function isNullCell(cell: Cell): boolean {
  if (cell === undefined || cell === null) return true;
  if (typeof cell !== 'string') return false;
  const length = cell.length;
  if (length === 0) return true;
  // the common case, a value without surrounding blanks that is not NULL, is decided without copying
  if (length > 4 && cell.charCodeAt(0) > 32 && cell.charCodeAt(length - 1) > 32) return false;
  const trimmed = cell.trim();
  return trimmed === '' || trimmed.toUpperCase() === 'NULL';
}

export function readText(cell: Cell): string | undefined {
  if (isNullCell(cell)) return undefined;
  if (typeof cell === 'string') return cell.charCodeAt(0) > 32 && cell.charCodeAt(cell.length - 1) > 32 ? cell : cell.trim();
  if (cell instanceof Date) return cell.toISOString();
  if (typeof cell === 'object') return JSON.stringify(cell, (_key, value: unknown) => (typeof value === 'bigint' ? Number(value) : value));
  return String(cell);
}

/**
 * ISO 8601 date or date-time, with `T` or a space between date and time, with or without `Z` or
 * an offset. A date-time without an offset is UTC (FOCUS: every datetime is UTC), whatever the
 * server's time zone: the value is assembled with `Date.UTC`, never parsed by `new Date(text)`.
 */
const DATE_TIME = new RegExp(
  // date, optional time (`T` or a space, then hours, minutes, seconds and fraction), optional zone
  /^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])/.source +
    /(?:[T ]([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:\.(\d{1,9}))?)?)?/.source +
    /\s*(Z|[+-](?:[01]\d|2[0-3]):?[0-5]\d)?$/.source,
  'i',
);

export function readDate(cell: Cell, column: string): Date | undefined {
  if (isNullCell(cell)) return undefined;
  if (cell instanceof Date) {
    if (Number.isNaN(cell.getTime())) throw new CellError(`${column} is not a valid date`);
    return cell;
  }
  const text = String(cell).trim();
  const fast = commonDate(text);
  if (fast !== undefined) return fast;
  const match = DATE_TIME.exec(text);
  if (!match) throw new CellError(`${column} "${text}" is not an ISO 8601 date`);
  const [, year, month, day, hour = '0', minute = '0', second = '0', fraction = '', zone] = match;
  const millis = Number(fraction.padEnd(3, '0').slice(0, 3));
  let time = Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second), millis);
  const utc = new Date(time);
  if (utc.getUTCDate() !== Number(day)) throw new CellError(`${column} "${text}" is not a calendar date`);
  if (zone && zone.toUpperCase() !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    time -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4))) * 60_000;
  }
  return new Date(time);
}

/** The digit at `at` (0 to 9), or -1. */
function digitAt(text: string, at: number): number {
  const code = text.charCodeAt(at) - 48;
  return code >= 0 && code <= 9 ? code : -1;
}

function twoDigits(text: string, at: number): number {
  const tens = digitAt(text, at);
  const ones = digitAt(text, at + 1);
  return tens < 0 || ones < 0 ? -1 : tens * 10 + ones;
}

/**
 * The layouts exports write (`2024-09-18`, `2024-09-18 22:00:00`, `2024-09-18T22:00:00`,
 * `2024-09-18T22:00:00Z`), read without the regular expression: the very Date `DATE_TIME`'s
 * path gives (same `Date.UTC` call, same calendar check). Anything else, or any doubt, is left
 * to that path (`undefined`), which also words every error.
 */
function commonDate(text: string): Date | undefined {
  const length = text.length;
  if (length !== 10 && length !== 19 && length !== 20) return undefined;
  const high = twoDigits(text, 0);
  const low = twoDigits(text, 2);
  const month = twoDigits(text, 5);
  const day = twoDigits(text, 8);
  if (high < 0 || low < 0 || month < 1 || month > 12 || day < 1 || day > 31) return undefined;
  if (text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45) return undefined; // '-'
  let hour = 0;
  let minute = 0;
  let second = 0;
  if (length > 10) {
    const separator = text.charCodeAt(10);
    if (separator !== 84 && separator !== 32) return undefined; // 'T' or ' '
    hour = twoDigits(text, 11);
    minute = twoDigits(text, 14);
    second = twoDigits(text, 17);
    if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return undefined;
    if (text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58) return undefined; // ':'
    if (length === 20 && text.charCodeAt(19) !== 90) return undefined; // 'Z'
  }
  const date = new Date(Date.UTC(high * 100 + low, month - 1, day, hour, minute, second, 0));
  return date.getUTCDate() === day ? date : undefined;
}

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d{1,3})?$/;

/**
 * A decimal as the nearest binary double: no rounding to a number of places (10 and more
 * decimals, exponents such as `8e-7`, negatives are kept as given). See the README's money
 * decision for why doubles.
 */
export function readDecimal(cell: Cell, column: string): number | undefined {
  if (isNullCell(cell)) return undefined;
  if (typeof cell === 'number') {
    if (!Number.isFinite(cell)) throw new CellError(`${column} ${cell} is not a finite number`);
    return cell;
  }
  if (typeof cell === 'bigint') return Number(cell);
  const text = String(cell).trim();
  // `Number` first: it reads what DECIMAL accepts the same way, and reads more only with a letter
  // (`0x10`, `0b1`, `0o7` have it second, exponents an `e`): those texts go through DECIMAL
  const quick = Number(text);
  if (Number.isFinite(quick) && text.length > 0 && !(text.charCodeAt(1) >= 65) && text.indexOf('e') < 0 && text.indexOf('E') < 0) {
    return quick;
  }
  const parsed = DECIMAL.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(parsed)) throw new CellError(`${column} "${text}" is not a decimal number`);
  return parsed;
}

const CURRENCY = /^[A-Z]{3}$/;

export function readCurrency(cell: Cell, column: string): string | undefined {
  const text = readText(cell);
  if (text === undefined) return undefined;
  if (!CURRENCY.test(text)) throw new CellError(`${column} "${text}" is not an ISO 4217 code`);
  return text;
}

/** A JSON object cell (SkuPriceDetails, AllocatedMethodDetails): kept as its JSON text. */
export function readJsonObject(cell: Cell, column: string): string | undefined {
  if (isNullCell(cell)) return undefined;
  if (typeof cell === 'object' && !(cell instanceof Date)) return readText(cell);
  const text = String(cell).trim();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CellError(`${column} is not valid JSON`);
  }
  if (!parsed || typeof parsed !== 'object') throw new CellError(`${column} must be a JSON object or array`);
  return text;
}

/** `YYYYMM` of a date, in UTC. */
export function periodOf(date: Date): string {
  return `${date.getUTCFullYear()}${String(date.getUTCMonth() + 1).padStart(2, '0')}`;
}
