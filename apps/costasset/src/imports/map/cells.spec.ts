import { isNullCell, periodOf, readDate, readDecimal, readText } from './cells';
import { detectVersion, focusColumnOf, mandatoryColumnsOf, parseVersion } from './focus-columns';
import { IngestReport, outcomeOf, problem } from '../report/ingest-report';

describe('cell rules', () => {
  it('reads empty, blank and NULL cells as null, and nothing else', () => {
    for (const cell of ['', '   ', 'NULL', ' null ', undefined, null]) expect(isNullCell(cell)).toBe(true);
    for (const cell of ['NULLS', 'N', '0', 0, false, 'a NULL']) expect(isNullCell(cell)).toBe(false);
    expect(readText('  x ')).toBe('x');
  });

  it('reads datetimes with or without T, Z, fraction or offset, and without an offset as UTC', () => {
    const utc = new Date(Date.UTC(2024, 8, 30, 22, 0, 0));
    for (const text of [
      '2024-09-30 22:00:00',
      '2024-09-30T22:00:00',
      '2024-09-30T22:00:00Z',
      '2024-09-30T22:00:00.000Z',
      '2024-10-01T00:00:00+02:00',
      '2024-10-01 00:00:00+0200',
    ])
      expect(readDate(text, 'C')).toEqual(utc);
    expect(readDate('2024-09-30', 'C')).toEqual(new Date(Date.UTC(2024, 8, 30)));
    expect(periodOf(readDate('2024-09-30 23:59:59', 'C') as Date)).toBe('202409');
    expect(() => readDate('2024-02-30', 'C')).toThrow('not a calendar date');
    expect(() => readDate('30/09/2024', 'C')).toThrow('is not an ISO 8601 date');
  });

  it('keeps decimals as given: many places, exponents, negatives; refuses commas and words', () => {
    expect(readDecimal('0.000000800000000001', 'B')).toBe(0.000000800000000001);
    expect(readDecimal('8E-7', 'B')).toBe(8e-7);
    expect(readDecimal('-12.3456789012345', 'B')).toBe(-12.3456789012345);
    expect(readDecimal(12n, 'B')).toBe(12);
    expect(() => readDecimal('1,5', 'B')).toThrow('is not a decimal number');
  });
});

describe('FOCUS columns', () => {
  it('detects the version from the columns a file has', () => {
    expect(detectVersion(['BilledCost', 'ChargeClass'])).toBe('1.0');
    expect(detectVersion(['BilledCost', 'ServiceSubcategory'])).toBe('1.1');
    expect(detectVersion(['InvoiceId', 'SkuMeter'])).toBe('1.2');
    expect(detectVersion(['ProviderName', 'ServiceProviderName'])).toBe('1.3');
    expect(parseVersion('FOCUS v1.2.0')).toBe('1.2');
    expect(parseVersion('2.0')).toBeUndefined();
  });

  it('maps renamed and preview names and knows what each version makes mandatory', () => {
    expect(focusColumnOf('UsageQuantity')?.name).toBe('ConsumedQuantity');
    expect(focusColumnOf(' region ')?.name).toBe('RegionId');
    expect(mandatoryColumnsOf('1.2').map((column) => column.name)).toContain('ProviderName');
    expect(mandatoryColumnsOf('1.3').map((column) => column.name)).not.toContain('ProviderName');
    expect(mandatoryColumnsOf('1.3').map((column) => column.name)).toContain('ServiceProviderName');
  });
});

describe('ingest report', () => {
  it('rejects on errors only, keeps every problem of a row and counts each rule beyond the examples', () => {
    const report = new IngestReport();
    for (let line = 2; line < 12; line++)
      report.record('f.csv', line, [problem('DECIMAL_INVALID', `bad ${line}`), problem('VALUE_NOT_ALLOWED', 'w', 'warning')]);
    expect(report.record('f.csv', 12, [problem('VALUE_NOT_ALLOWED', 'w', 'warning')])).toBe(false);
    const counts = report.counts();
    expect(counts.rowsRejected).toBe(10);
    expect(counts.errors[0]).toEqual({ file: 'f.csv', line: 2, reason: 'bad 2' });
    expect(counts.rules.map((rule) => [rule.rule, rule.count, rule.examples.length])).toEqual([
      ['VALUE_NOT_ALLOWED', 11, 5],
      ['DECIMAL_INVALID', 10, 5],
    ]);
  });

  it('never calls a run that wrote nothing, or rejected beyond the threshold, a success', () => {
    expect(outcomeOf({ rowsRead: 10, rowsWritten: 0, rowsRejected: 10 }, 100)).toBe('failed');
    expect(outcomeOf({ rowsRead: 10, rowsWritten: 9, rowsRejected: 1 }, 0)).toBe('completed_with_errors');
    expect(outcomeOf({ rowsRead: 10, rowsWritten: 9, rowsRejected: 1 }, 10)).toBe('succeeded');
  });
});
