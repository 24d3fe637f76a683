import request from 'supertest';
import type { FocusSumsReport } from '../../tools/focus/focus-rows';
import { allLineItems, costTotals, expectSameTotals, focusFile, importFocus, Totals } from '../support/focus';
import { Platform, startPlatform } from '../support/platform';

/** Totals per provider equal a file's own exact sums (rows, billed cost to 1e-6). */
function expectProviderTotals(actual: Totals[], sums: FocusSumsReport): void {
  const expected = sums.byProvider;
  expect(actual.map((group) => group.key.providerName).sort()).toEqual(Object.keys(expected).sort());
  for (const group of actual) {
    const want = expected[group.key.providerName as string];
    expect(group.lineItems).toBe(want.rows);
    expect(Math.abs(group.billedCost - Number(want.billedCost))).toBeLessThanOrEqual(1e-6);
  }
}

/** A CSV file cut in two parts at a row boundary, each with the header. */
function halves(body: Buffer): [Buffer, Buffer] {
  const lines = body.toString('utf8').split('\r\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const [header, ...rows] = lines;
  const middle = Math.floor(rows.length / 2);
  const part = (slice: string[]) => Buffer.from([header, ...slice].join('\r\n') + '\r\n');
  return [part(rows.slice(0, middle)), part(rows.slice(middle))];
}

/**
 * Parts of one upload that hold the same rows (docs/focus.md, "Overlapping parts in one upload"),
 * over HTTP against the real stack: one snapshot put twice into one upload is refused as a whole
 * and changes no total; the parts of one export, each with its own rows, import as one data set.
 */
describe('costasset FOCUS parts of one upload that overlap', () => {
  let platform: Platform;
  let admin: string;
  const api = () => request(platform.costasset.url);
  const totalsByPeriod = () => costTotals(platform, admin, { groupBy: 'billingPeriod' });

  beforeAll(async () => {
    platform = await startPlatform({ GPD_BATCH_SIZE: '100', JOBS_RETRY_DELAY_MS: '100' });
    admin = await platform.token({ sub: 'admin' });
  });
  afterAll(() => platform.close());

  it(
    'refuses an upload holding one snapshot under two names: the job fails once, the upload names both parts, ' +
      'the billing account and period, and every total stays as it was',
    async () => {
      const snapshot = await focusFile({ version: '1.2', format: 'csv.gz', rows: 300, providers: ['aws'], periods: ['202409'] });
      const earlier = await importFocus(platform, admin, [{ name: 'september.csv.gz', body: snapshot.body }]);
      expect(earlier.job).toMatchObject({ status: 'succeeded', result: { rowsWritten: 300 } });
      const before = await totalsByPeriod();
      expect(before.reduce((rows, group) => rows + group.lineItems, 0)).toBe(300);

      const twice = await importFocus(platform, admin, [
        { name: 'exec-a-part-1.csv.gz', body: snapshot.body },
        { name: 'exec-b-part-1.csv.gz', body: snapshot.body },
      ]);
      expect(twice.job).toMatchObject({
        status: 'failed',
        attempts: 1,
        error: expect.stringMatching(/^FOCUS_PARTS_OVERLAP: 1 pair\(s\) of parts hold the same rows \(exec-a-part-1\.csv\.gz and exec-b/),
      });
      const record = (await api().get(`/api/costasset/v1/focus/uploads/${twice.uploadId}`).set('corelite-token', admin).expect(200)).body;
      const reason = new RegExp(
        /^holds the same rows as exec-b-part-1\.csv\.gz for billing account \S+, billing period \d{6} \(about 100% of its rows\)/.source +
          /( and in \d+ other billing account\(s\) or period\(s\))?: /.source +
          /two snapshots of one period in one upload would count its cost twice; /.source +
          /import them as separate uploads \(the newer replaces the older\) or drop one$/.source,
      );
      expect(record).toMatchObject({
        status: 'failed',
        rowsRead: 600,
        rowsWritten: 0,
        errors: [{ file: 'exec-a-part-1.csv.gz', line: 0, reason: expect.stringMatching(reason) }],
        parts: [
          { name: 'exec-a-part-1.csv.gz', rowsRead: 300 },
          { name: 'exec-b-part-1.csv.gz', rowsRead: 300 },
        ],
      });
      expect(record.conformance.rules).toContainEqual({
        rule: 'FOCUS_PARTS_OVERLAP',
        severity: 'error',
        count: 1,
        examples: [{ file: 'exec-a-part-1.csv.gz', line: 0, message: expect.stringMatching(reason) }],
      });
      // nothing of the refused upload stays, and the earlier import keeps its month
      expect(await allLineItems(platform, admin, { uploadRefId: twice.uploadId })).toEqual([]);
      expectSameTotals(await totalsByPeriod(), before);
      const kept = (await api().get(`/api/costasset/v1/focus/uploads/${earlier.uploadId}`).set('corelite-token', admin).expect(200)).body;
      expect(kept.status).toBe('imported');
    },
  );

  it('imports the two halves of one export as two parts of one upload: every row once, totals those of the whole file', async () => {
    const whole = await focusFile({ version: '1.2', format: 'csv', rows: 400, providers: ['aws', 'oci', 'gcp'], periods: ['202411'] });
    const [first, second] = halves(whole.body);
    const { uploadId, job } = await importFocus(platform, admin, [
      { name: 'part-00001.csv', body: first },
      { name: 'part-00002.csv', body: second },
    ]);
    expect(job).toMatchObject({ status: 'succeeded', result: { rowsRead: 400, rowsWritten: 400, rowsRejected: 0 } });
    expectProviderTotals(await costTotals(platform, admin, { uploadRefId: uploadId, groupBy: 'providerName' }), whole.sums);
    expectProviderTotals(await costTotals(platform, admin, { billingPeriod: '202411', groupBy: 'providerName' }), whole.sums);
    const record = (await api().get(`/api/costasset/v1/focus/uploads/${uploadId}`).set('corelite-token', admin).expect(200)).body;
    expect(record).toMatchObject({
      status: 'imported',
      errors: [],
      parts: [
        { name: 'part-00001.csv', rowsRead: 200 },
        { name: 'part-00002.csv', rowsRead: 200 },
      ],
    });
    expect((record.conformance?.rules ?? []).map((rule: { rule: string }) => rule.rule)).not.toContain('FOCUS_PARTS_OVERLAP');
  });
});
