import type { ComponentChildren } from 'preact';
import type { ApiError } from '../api/problem';
import { bucketLabel, dateTime, money, number, percent } from './format';

/** How a column's value reads: as it is, a count, money, a percentage, a date and time, a month (YYYYMM). */
export type CellFormat = 'text' | 'number' | 'money' | 'percent' | 'date' | 'month';
export type CellValue = string | number | null | undefined;
export type SortDirection = 'ascending' | 'descending';
export interface Sort {
  key: string;
  direction: SortDirection;
}

/** What a row's own cells may use: whether its detail row is open, and where its actions report a problem. */
export interface RowScope {
  expanded: boolean;
  toggle: () => void;
  /** Shows a problem of the row's actions under it (undefined clears it). */
  report: (problem: ApiError | undefined) => void;
}

/** A column of a data table: its header, its value (sorting, CSV, default cell), how it reads and where it aligns. */
export interface Column<R> {
  key: string;
  header: string;
  value?: (row: R) => CellValue;
  /** The cell as shown, when the formatted value is not enough. */
  cell?: (row: R, scope: RowScope) => ComponentChildren;
  format?: CellFormat;
  currency?: (row: R) => string | null | undefined;
  digits?: number;
  align?: 'start' | 'end';
  /** The row's header cell (`<th scope="row">`). */
  rowHeader?: boolean;
  /** Sortable by clicking the header (a column with a value is, unless false). */
  sortable?: boolean;
  /** In the CSV (a column with a value is, unless false). */
  csv?: boolean;
  /** The buttons of a row: a quiet "Actions" header, never sorted nor exported. */
  actions?: boolean;
  class?: string;
  testId?: (row: R) => string;
}

const NUMERIC = new Set<CellFormat>(['number', 'money', 'percent']);

export const isNumeric = (column: Pick<Column<unknown>, 'format'>) => NUMERIC.has(column.format ?? 'text');
export const alignOf = (column: Pick<Column<unknown>, 'format' | 'align'>) => column.align ?? (isNumeric(column) ? 'end' : 'start');
export const isSortable = (column: Column<never>) => !column.actions && column.value !== undefined && column.sortable !== false;
export const inCsv = (column: Column<never>) => !column.actions && column.value !== undefined && column.csv !== false;

/** A value as the table shows it: formatted by format.ts; `—` for none. */
export function formatValue(value: CellValue, format: CellFormat = 'text', currency?: string | null, digits?: number): string {
  if (value === null || value === undefined || value === '') return '—';
  switch (format) {
    case 'number':
      return typeof value === 'number' ? number(value) : value;
    case 'money':
      return typeof value === 'number' ? money(value, currency) : value;
    case 'percent':
      return typeof value === 'number' ? percent(value, digits) : value;
    case 'date':
      return dateTime(String(value));
    case 'month':
      return bucketLabel(String(value), true);
    default:
      return String(value);
  }
}

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/** Ascending order of two values: numbers as numbers, text naturally (`a2` before `a10`); no value last. */
export function compareValues(a: CellValue, b: CellValue): number {
  const missingA = a === null || a === undefined || a === '';
  const missingB = b === null || b === undefined || b === '';
  if (missingA || missingB) return missingA === missingB ? 0 : missingA ? 1 : -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return collator.compare(String(a), String(b));
}

/** The rows in the order of `sort` (stable: equal rows keep their order; rows without a value stay last either way). */
export function sortRows<R>(rows: readonly R[], columns: readonly Column<R>[], sort: Sort | undefined): R[] {
  const column = sort && columns.find((entry) => entry.key === sort.key);
  if (!sort || !column?.value) return [...rows];
  const value = column.value;
  const sign = sort.direction === 'ascending' ? 1 : -1;
  return rows
    .map((row, index) => ({ row, index, value: value(row) }))
    .sort((a, b) => {
      const missingA = a.value === null || a.value === undefined || a.value === '';
      const missingB = b.value === null || b.value === undefined || b.value === '';
      const order = missingA || missingB ? compareValues(a.value, b.value) : sign * compareValues(a.value, b.value);
      return order || a.index - b.index;
    })
    .map((entry) => entry.row);
}

/**
 * A click on a header: a new column sorts its natural way (numbers and dates largest first), the same one the other way, then not
 * at all.
 */
export function nextSort(current: Sort | undefined, column: Pick<Column<unknown>, 'key' | 'format'>): Sort | undefined {
  const first: SortDirection = isNumeric(column) || column.format === 'date' || column.format === 'month' ? 'descending' : 'ascending';
  if (current?.key !== column.key) return { key: column.key, direction: first };
  if (current.direction === first) return { key: column.key, direction: first === 'ascending' ? 'descending' : 'ascending' };
  return undefined;
}

/** A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break; text a spreadsheet would run as a formula is defused. */
export function csvField(value: CellValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  const text = /^[=+\-@\t\r]/.test(value) && !/^[+-]?\d+(\.\d+)?$/.test(value) ? `'${value}` : value;
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * The rows as the table shows them (its order, its columns), as CSV: a header line, then a line per
 * row, CRLF-terminated. Numbers go out unformatted (a spreadsheet reads them); dates and months as shown.
 */
export function toCsv<R>(columns: readonly Column<R>[], rows: readonly R[]): string {
  const exported = columns.filter(inCsv);
  const line = (fields: string[]) => `${fields.join(',')}\r\n`;
  const cell = (column: Column<R>, row: R) => {
    const value = column.value!(row);
    return column.format === 'date' || column.format === 'month'
      ? value === null || value === undefined || value === ''
        ? ''
        : formatValue(value, column.format)
      : value;
  };
  return (
    line(exported.map((column) => csvField(column.header))) +
    rows.map((row) => line(exported.map((column) => csvField(cell(column, row))))).join('')
  );
}

/** A file name for a table's CSV: `budget-periods.csv`. */
export const csvFileName = (name: string) =>
  `${
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'table'
  }.csv`;
