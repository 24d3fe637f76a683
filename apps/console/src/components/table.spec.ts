import { describe, expect, it } from '@jest/globals';
import {
  alignOf,
  type Column,
  compareValues,
  csvField,
  csvFileName,
  formatValue,
  inCsv,
  isSortable,
  nextSort,
  sortRows,
  toCsv,
} from './table';

interface Row {
  name: string;
  cost: number | null;
  at?: string;
  period: string;
}

const rows: Row[] = [
  { name: 'b', cost: 2, at: '2024-10-05T12:00:00Z', period: '202410' },
  { name: 'a10', cost: null, period: '202409' },
  { name: 'a2', cost: 10, at: '2024-09-01T12:00:00Z', period: '202408' },
  { name: 'A2', cost: 2, period: '202407' },
];

const columns: Column<Row>[] = [
  { key: 'name', header: 'Name', value: (row) => row.name, rowHeader: true },
  { key: 'cost', header: 'Cost', value: (row) => row.cost, format: 'money', currency: () => 'USD' },
  { key: 'at', header: 'Updated', value: (row) => row.at, format: 'date' },
  { key: 'period', header: 'Month', value: (row) => row.period, format: 'month' },
  { key: 'actions', header: 'Actions', actions: true, cell: () => null },
];

const names = (list: Row[]) => list.map((row) => row.name);

describe('data table: sorting', () => {
  it('compares numbers as numbers, text naturally and without case, and puts missing values last', () => {
    expect(compareValues(2, 10)).toBeLessThan(0);
    expect(compareValues('a2', 'a10')).toBeLessThan(0);
    expect(compareValues('a', 'A')).toBe(0);
    expect(compareValues(null, 1)).toBeGreaterThan(0);
    expect(compareValues('', 'x')).toBeGreaterThan(0);
    expect(compareValues(undefined, null)).toBe(0);
  });

  it('sorts by a column either way, stably, with rows lacking a value last in both directions', () => {
    expect(names(sortRows(rows, columns, { key: 'cost', direction: 'ascending' }))).toEqual(['b', 'A2', 'a2', 'a10']);
    expect(names(sortRows(rows, columns, { key: 'cost', direction: 'descending' }))).toEqual(['a2', 'b', 'A2', 'a10']);
    expect(names(sortRows(rows, columns, { key: 'name', direction: 'ascending' }))).toEqual(['a2', 'A2', 'a10', 'b']);
    expect(names(sortRows(rows, columns, { key: 'name', direction: 'descending' }))).toEqual(['b', 'a10', 'a2', 'A2']);
    expect(names(sortRows(rows, columns, { key: 'at', direction: 'descending' }))).toEqual(['b', 'a2', 'a10', 'A2']);
  });

  it('keeps the rows’ own order without a sort, or for a column it cannot sort by, and never changes the rows given', () => {
    const given = [...rows];
    expect(names(sortRows(rows, columns, undefined))).toEqual(['b', 'a10', 'a2', 'A2']);
    expect(names(sortRows(rows, columns, { key: 'actions', direction: 'ascending' }))).toEqual(['b', 'a10', 'a2', 'A2']);
    expect(names(sortRows(rows, columns, { key: 'unknown', direction: 'ascending' }))).toEqual(['b', 'a10', 'a2', 'A2']);
    sortRows(rows, columns, { key: 'cost', direction: 'ascending' });
    expect(rows).toEqual(given);
  });

  it('cycles a header’s clicks: text A→Z first, numbers and dates largest first, then the other way, then unsorted', () => {
    const name = columns[0];
    const cost = columns[1];
    const at = columns[2];
    expect(nextSort(undefined, name)).toEqual({ key: 'name', direction: 'ascending' });
    expect(nextSort({ key: 'name', direction: 'ascending' }, name)).toEqual({ key: 'name', direction: 'descending' });
    expect(nextSort({ key: 'name', direction: 'descending' }, name)).toBeUndefined();
    expect(nextSort(undefined, cost)).toEqual({ key: 'cost', direction: 'descending' });
    expect(nextSort({ key: 'cost', direction: 'descending' }, cost)).toEqual({ key: 'cost', direction: 'ascending' });
    expect(nextSort({ key: 'cost', direction: 'ascending' }, cost)).toBeUndefined();
    expect(nextSort({ key: 'name', direction: 'descending' }, at)).toEqual({ key: 'at', direction: 'descending' });
  });

  it('sorts and exports the columns with a value, never the actions', () => {
    expect(columns.map((column) => isSortable(column as Column<never>))).toEqual([true, true, true, true, false]);
    expect(isSortable({ key: 'x', header: 'X', value: () => 1, sortable: false })).toBe(false);
    expect(isSortable({ key: 'x', header: 'X', cell: () => 'shown' })).toBe(false);
    expect(inCsv({ key: 'x', header: 'X', value: () => 1, csv: false })).toBe(false);
    expect(columns.map((column) => alignOf(column as Column<never>))).toEqual(['start', 'end', 'start', 'start', 'start']);
    expect(alignOf({ format: 'number', align: 'start' })).toBe('start');
  });
});

describe('data table: cells', () => {
  it('formats values through format.ts, a dash for none', () => {
    expect(formatValue(1234.5, 'money', 'USD')).toBe('$1,234.50');
    expect(formatValue(1234.5, 'money', null)).toBe('1,234.50');
    expect(formatValue(1234567, 'number')).toBe('1,234,567');
    expect(formatValue(12.345, 'percent')).toBe('12.3%');
    expect(formatValue(12.345, 'percent', undefined, 0)).toBe('12%');
    expect(formatValue('202410', 'month')).toBe('October 2024');
    expect(formatValue('2024-10-05T12:00:00Z', 'date')).toMatch(/Oct 2024/);
    expect(formatValue('text')).toBe('text');
    expect(formatValue(7)).toBe('7');
    expect(formatValue(null, 'money', 'USD')).toBe('—');
    expect(formatValue(undefined)).toBe('—');
    expect(formatValue('', 'number')).toBe('—');
    expect(formatValue(0, 'number')).toBe('0');
  });
});

describe('data table: CSV', () => {
  it('quotes a field only when it must (RFC 4180), doubling its quotes', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('cr\rhere')).toBe('"cr\rhere"');
    expect(csvField(' padded ')).toBe('" padded "');
    expect(csvField('')).toBe('');
    expect(csvField(null)).toBe('');
    expect(csvField(undefined)).toBe('');
  });

  it('writes numbers as they are (no grouping, no rounding), nothing for one that is not finite', () => {
    expect(csvField(1234.5678)).toBe('1234.5678');
    expect(csvField(-3)).toBe('-3');
    expect(csvField(0)).toBe('0');
    expect(csvField(Number.NaN)).toBe('');
    expect(csvField(Number.POSITIVE_INFINITY)).toBe('');
  });

  it('defuses text a spreadsheet would run as a formula, but not a signed number', () => {
    expect(csvField('=SUM(A1:A9)')).toBe("'=SUM(A1:A9)");
    expect(csvField('@cmd')).toBe("'@cmd");
    expect(csvField('+1 (555) 0100')).toBe("'+1 (555) 0100");
    expect(csvField('-2+3,4')).toBe(`"'-2+3,4"`);
    expect(csvField('-12.5')).toBe('-12.5');
    expect(csvField('+7')).toBe('+7');
  });

  it('writes the rows in the order given under the exported columns’ headers, CRLF-terminated', () => {
    const shown = sortRows(rows, columns, { key: 'cost', direction: 'descending' });
    const csv = toCsv(columns, shown);
    const lines = csv.split('\r\n');
    expect(csv.endsWith('\r\n')).toBe(true);
    expect(lines[0]).toBe('Name,Cost,Updated,Month');
    expect(lines.slice(1, -1).map((line) => line.split(',')[0])).toEqual(['a2', 'b', 'A2', 'a10']);
    expect(lines[1]).toMatch(/^a2,10,"?\d{1,2} Sept? 2024, \d{2}:\d{2}"?,August 2024$/);
    expect(lines[4]).toBe('a10,,,September 2024');
    expect(lines).toHaveLength(6);
  });

  it('quotes headers and values that need it, and leaves out what is not exported', () => {
    const csv = toCsv<{ note: string }>(
      [
        { key: 'note', header: 'Note, free text', value: (row) => row.note },
        { key: 'hidden', header: 'Hidden', value: () => 'x', csv: false },
        { key: 'shown', header: 'Shown only', cell: () => 'y' },
      ],
      [{ note: 'he said "no"\nthen left' }],
    );
    expect(csv).toBe('"Note, free text"\r\n"he said ""no""\nthen left"\r\n');
    expect(toCsv(columns, [])).toBe('Name,Cost,Updated,Month\r\n');
  });

  it('names the file after the table', () => {
    expect(csvFileName('Budget Azure run rate')).toBe('budget-azure-run-rate.csv');
    expect(csvFileName('top services 202410')).toBe('top-services-202410.csv');
    expect(csvFileName('  ')).toBe('table.csv');
  });
});
