import { parse } from 'csv-parse/sync';
import { csvRecord, neutraliseFormula } from './csv-record';

describe('csvRecord', () => {
  it('quotes as RFC 4180 asks, line breaks included, and ends records with CRLF', () => {
    expect(csvRecord(['a,b', 'x"y', 'l\nm', 'c\rd', 'plain', '', null, undefined, 3, -1.5], 'product')).toBe(
      '"a,b","x""y","l\nm","c\rd",plain,,,,3,-1.5\r\n',
    );
  });

  it('neutralises text cells that start a formula for a spreadsheet, with a leading quote', () => {
    const cells = ['=HYPERLINK("http://x","y")', '@SUM(A1)', '+cmd|x', '-2+3', '\tA', '\rB', 'ok', '-12.5', '+3', '1e5', '-', '=1'];
    const record = csvRecord(cells, 'spreadsheet');
    expect(parse(record)[0]).toEqual([
      `'=HYPERLINK("http://x","y")`,
      "'@SUM(A1)",
      "'+cmd|x",
      "'-2+3",
      "'\tA",
      "'\rB",
      'ok',
      '-12.5',
      '+3',
      '1e5',
      "'-",
      "'=1",
    ]);
  });

  it('never touches numbers, and leaves every value as it is for the product itself', () => {
    expect(csvRecord([-3, 0.1, '=A1', '@x'], 'spreadsheet')).toBe("-3,0.1,'=A1,'@x\r\n");
    expect(parse(csvRecord(['=A1', '@x', '+y', '-z'], 'product'))[0]).toEqual(['=A1', '@x', '+y', '-z']);
  });

  it('neutraliseFormula keeps ordinary text', () => {
    expect(neutraliseFormula('Amazon EC2')).toBe('Amazon EC2');
    expect(neutraliseFormula('')).toBe('');
  });
});
