import request from 'supertest';
import { allLineItems, costTotals, focusFile, startFocusImport, Totals } from '../support/focus';
import { waitForJob } from '../support/ingest';
import { eventually, Platform, startPlatform } from '../support/platform';
import { freePorts, ServiceProcess, startServiceProcess } from '../support/service-process';

const PARTS = 8;
const ROWS = 24_000;

/** A CSV file cut into `count` parts at row boundaries, each with the header. */
function cut(body: Buffer, count: number): { name: string; body: Buffer }[] {
  const lines = body.toString('utf8').split('\r\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const [header, ...rows] = lines;
  const size = Math.ceil(rows.length / count);
  return Array.from({ length: count }, (_unused, index) => ({
    name: `export-part-${index + 1}.csv`,
    body: Buffer.from([header, ...rows.slice(index * size, (index + 1) * size)].join('\r\n') + '\r\n'),
  }));
}

/** Line items as the file gave them, without what differs between two imports of the same rows (ids, upload). */
const canonical = (items: Record<string, unknown>[]) =>
  items.map(({ id: _id, uploadRefId: _upload, ...item }) => JSON.stringify(item)).sort();

/** The same groups and rows; amounts equal but for the last bits of a double sum (the rows are summed in another order). */
function expectSameTotals(actual: Totals[], expected: Totals[]): void {
  expect(actual.map(({ key, lineItems }) => ({ key, lineItems }))).toEqual(expected.map(({ key, lineItems }) => ({ key, lineItems })));
  for (const [index, group] of actual.entries())
    for (const amount of ['cost', 'billedCost', 'effectiveCost', 'listCost', 'contractedCost'] as const)
      expect(Math.abs(group[amount] - expected[index][amount])).toBeLessThanOrEqual(1e-6);
}

/**
 * A FOCUS upload of 8 parts imported part by part (FOCUS_PART_JOBS_MIN_PARTS) by two costasset
 * instances as real processes on one database and one NATS: both take parts, the upload completes
 * once, and its line items and totals are exactly those of the same files imported by one instance
 * as one job. An instance killed (SIGKILL) while it imports a part leaves that part to the other.
 */
describe('costasset: one FOCUS upload imported part by part by two instances', () => {
  let platform: Platform;
  let admin: string;
  const instances: ServiceProcess[] = [];
  let env: NodeJS.ProcessEnv;
  let ports: number[];
  let files: { name: string; body: Buffer }[];
  const at = (instance: ServiceProcess) => ({ ...platform, costasset: { ...platform.costasset, url: instance.url } });
  const linesOf = (jobId: string, msg: string) =>
    instances.flatMap((instance) => instance.logs.filter((line) => line.jobId === jobId && line.msg === msg));
  const partJobs = async (instance: ServiceProcess, parentJobId: string) =>
    (
      await request(instance.url)
        .get('/api/costasset/v1/jobs')
        .query({ type: 'focus.import-part', limit: 200 })
        .set('corelite-token', admin)
        .expect(200)
    ).body.items.filter((job: { parentJobId?: string }) => job.parentJobId === parentJobId);

  beforeAll(async () => {
    // the platform gives the database, NATS, the object store and authz; its in-process costasset
    // steps aside (its queue consumer is the same durable consumer)
    platform = await startPlatform();
    await platform.costasset.app.close();
    admin = await platform.token({ sub: 'admin' });
    env = { ...platform.env, JOBS_ACK_WAIT_MS: '3000', GPD_BATCH_SIZE: '500' };
    ports = await freePorts(3);
    instances.push(
      ...(await Promise.all([0, 1].map((index) => startServiceProcess('costasset', env, `costasset-${index + 1}`, ports[index])))),
    );
    const generated = await focusFile({ version: '1.2', format: 'csv', rows: ROWS, providers: ['aws', 'gcp'], periods: ['202410'] });
    files = cut(generated.body, PARTS);
  }, 240_000);
  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.kill()));
    await platform.authz.app.close();
  });

  let firstItems: string[];
  let firstTotals: Totals[];
  const totals = (instance: ServiceProcess) => costTotals(at(instance), admin, { groupBy: 'providerName,billingAccountId' });
  const totalsSource = async (instance: ServiceProcess) =>
    (
      await request(instance.url)
        .get('/api/costasset/v1/costLineItems/totals')
        .query({ groupBy: 'providerName' })
        .set('corelite-token', admin)
        .expect(200)
    ).body.source;

  it('imports the 8 parts on both instances, and completes the upload once, when the last part is in', async () => {
    const [one] = instances;
    const { jobId } = await startFocusImport(at(one), admin, files);
    const job = await waitForJob(at(one), admin, jobId, 120_000);
    expect((job.result as { errors: unknown[] }).errors).toEqual([]);
    expect(job).toMatchObject({ status: 'succeeded', result: { rowsRead: ROWS, rowsWritten: ROWS, rowsRejected: 0 } });
    expect((job.result as { parts: unknown[] }).parts).toHaveLength(PARTS);
    const parts = await partJobs(one, jobId);
    expect(parts.map((part: { status: string }) => part.status)).toEqual(Array(PARTS).fill('succeeded'));
    // both instances took parts; the upload's job was resumed and ended once
    const ranParts = new Set(parts.flatMap((part: { jobId: string }) => linesOf(part.jobId, 'job succeeded').map((line) => line.instance)));
    expect([...ranParts].sort()).toEqual(['costasset-1', 'costasset-2']);
    await eventually(async () => expect(linesOf(jobId, 'job succeeded')).toHaveLength(1), 10_000);
    expect(linesOf(jobId, 'job waiting for its parts')).toHaveLength(1);

    firstItems = canonical(await allLineItems(at(one), admin, {}));
    expect(firstItems).toHaveLength(ROWS);
    firstTotals = await totals(one);
    expect(firstTotals.reduce((rows, group) => rows + group.lineItems, 0)).toBe(ROWS);
    // answered from the rollup rows the parts stored, taken as the upload's once the last part was in
    expect(await totalsSource(one)).toBe('rollup');
  }, 180_000);

  it('finishes the part of an instance killed while it imports it on the other, with every row once', async () => {
    const [one, two] = instances;
    const { jobId } = await startFocusImport(at(one), admin, files);
    // the second instance is writing a part: killed before that part is done
    let killedPart = '';
    await eventually(
      async () => {
        const running = (await partJobs(one, jobId)).filter((part: { status: string }) => part.status === 'running');
        const onTwo = running.find((part: { jobId: string }) =>
          two.logs.some((line) => line.jobId === part.jobId && line.msg === 'job started'),
        );
        expect(onTwo).toBeDefined();
        killedPart = onTwo.jobId;
      },
      60_000,
      20,
    );
    await two.kill();
    const job = await waitForJob(at(one), admin, jobId, 120_000);
    expect(job).toMatchObject({ status: 'succeeded', result: { rowsWritten: ROWS } });
    const retried = (await request(one.url).get(`/api/costasset/v1/jobs/${killedPart}`).set('corelite-token', admin).expect(200)).body;
    expect(retried).toMatchObject({ status: 'succeeded', parentJobId: jobId });
    expect(retried.attempts).toBeGreaterThanOrEqual(2);
    expect(linesOf(killedPart, 'job succeeded').map((line) => line.instance)).toEqual(['costasset-1']);
    // the newer upload replaced the first one: the same rows, once
    expect(canonical(await allLineItems(at(one), admin, {}))).toEqual(firstItems);
    expectSameTotals(await totals(one), firstTotals);
    expect(await totalsSource(one)).toBe('rollup');
  }, 240_000);

  it('gives the same line items and totals as the same files imported by one instance as one job', async () => {
    await Promise.all(instances.map((instance) => instance.kill()));
    const single = await startServiceProcess('costasset', { ...env, FOCUS_PART_JOBS_MIN_PARTS: '0' }, 'costasset-single', ports[2]);
    instances.push(single);
    const { jobId } = await startFocusImport(at(single), admin, files);
    const job = await waitForJob(at(single), admin, jobId, 120_000);
    expect(job).toMatchObject({ status: 'succeeded', result: { rowsWritten: ROWS } });
    expect(await partJobs(single, jobId)).toEqual([]);
    expect(canonical(await allLineItems(at(single), admin, {}))).toEqual(firstItems);
    expectSameTotals(await totals(single), firstTotals);
  }, 240_000);
});
