import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import request from 'supertest';
import { admissionBoundsOf } from '@lib/config';
import { RunningGateway, startGateway } from '../../tools/stack/gateway';
import { REPO_ROOT } from '../../tools/stack/settings';
import { validGpd, validRows } from '../support/gpd-fixtures';
import { uploadGpd, waitForJob } from '../support/ingest';
import { scrape, total } from '../support/metrics';
import { eventually, Platform, startPlatform } from '../support/platform';
import { freePorts, ServiceProcess, startServiceProcess } from '../support/service-process';

/**
 * Two instances of each service as real processes behind one gateway (round robin), on one
 * database and one NATS: requests are shared, every job runs exactly once, a change made through
 * one instance drops the caches of both, and a job whose instance is killed (SIGKILL) in the
 * middle is finished by the other.
 */
describe('scale-out: two instances of each service behind the gateway', () => {
  let platform: Platform;
  let gateway: RunningGateway;
  let client: MongoClient;
  let admin: string;
  const authz: ServiceProcess[] = [];
  const costasset: ServiceProcess[] = [];
  const runDir = join(REPO_ROOT, '.stack', process.env.STACK_PROFILE || 'test', 'gateways', `scale-${process.pid}`);
  const api = () => request(gateway.url);
  /** The gateway as the test helpers' platform (uploads, jobs). */
  const viaGateway = () => ({ ...platform, costasset: { ...platform.costasset, url: gateway.url } });
  const linesOf = (jobId: string, msg: string) =>
    costasset.flatMap((instance) => instance.logs.filter((line) => line.jobId === jobId && line.msg === msg));

  beforeAll(async () => {
    // the platform gives the database (its indexes built), the NATS namespace and the signing
    // key; its in-process services and their gateway step aside
    platform = await startPlatform();
    await platform.close({ keepDatabase: true });
    client = await MongoClient.connect(platform.env.MONGODB_URI as string);
    const env = { ...platform.env, JOBS_ACK_WAIT_MS: '3000', GPD_BATCH_SIZE: '500' };
    // every instance holds its port before the gateway picks one: a port chosen for an instance but
    // not bound yet could be the gateway's, whose console fallback would then answer its readiness
    const [authzPorts, costassetPorts] = [await freePorts(2), await freePorts(2)];
    authz.push(...(await Promise.all(authzPorts.map((port, index) => startServiceProcess('authz', env, `authz-${index + 1}`, port)))));
    const costassetEnv = { ...env, AUTHZ_JWKS_URL: `${authz[0].url}/core/authorization/v1/.well-known/jwks.json` };
    costasset.push(
      ...(await Promise.all(
        costassetPorts.map((port, index) => startServiceProcess('costasset', costassetEnv, `costasset-${index + 1}`, port)),
      )),
    );
    gateway = await startGateway({
      port: 0,
      upstreams: {
        authz: authz.map((instance) => new URL(instance.url).host),
        costasset: costasset.map((instance) => new URL(instance.url).host),
      },
      admission: admissionBoundsOf(env),
      runDir,
    });
    admin = await platform.token({ sub: 'admin' });
  }, 240_000);
  afterAll(async () => {
    await Promise.all([...authz, ...costasset].map((instance) => instance.kill()));
    await gateway?.stop();
    rmSync(runDir, { recursive: true, force: true });
    await client?.db().dropDatabase();
    await client?.close();
  });

  it('shares requests between the instances round robin', async () => {
    const route = { authz: '/core/authorization/v1/me', costasset: '/api/costasset/v1/currency/defaultCurrency' };
    const served = async (instances: ServiceProcess[], path: string) =>
      Promise.all(
        instances.map(async (instance) =>
          total(await scrape(instance.url), 'corelite_http_request_duration_seconds', { route: path, status: '200' }),
        ),
      );
    const before = { authz: await served(authz, route.authz), costasset: await served(costasset, route.costasset) };
    for (let i = 0; i < 8; i++) {
      await api().get(route.authz).set('corelite-token', admin).expect(200);
      await api().get(route.costasset).set('corelite-token', admin).expect(200);
    }
    const after = { authz: await served(authz, route.authz), costasset: await served(costasset, route.costasset) };
    for (const service of ['authz', 'costasset'] as const) {
      const counts = after[service].map((count, index) => count - before[service][index]);
      expect({ service, sum: counts[0] + counts[1], each: counts.every((count) => count >= 2) }).toEqual({ service, sum: 8, each: true });
    }
  });

  it('drops the caches of both instances when one of them makes a change', async () => {
    // costasset: the corporate currency, cached per tenant by each instance
    for (const instance of costasset) {
      expect(
        (await request(instance.url).get('/api/costasset/v1/currency/defaultCurrency').set('corelite-token', admin).expect(200)).body,
      ).toEqual({ defaultCurrency: 'USD' });
    }
    await api()
      .put('/core/configuration/v1/configvalues')
      .set('corelite-token', admin)
      .send({ configurationkey: 'DEFAULT_CURRENCY', configurationvalue: 'EUR' })
      .expect(200);
    const seenByBoth = (currency: string) =>
      eventually(async () => {
        for (const instance of costasset) {
          expect(
            (await request(instance.url).get('/api/costasset/v1/currency/defaultCurrency').set('corelite-token', admin).expect(200)).body,
          ).toEqual({ defaultCurrency: currency });
        }
      }, 30_000);
    await seenByBoth('EUR');
    // and back (the jobs below convert into USD, the rates of the fixtures)
    await api()
      .put('/core/configuration/v1/configvalues')
      .set('corelite-token', admin)
      .send({ configurationkey: 'DEFAULT_CURRENCY', configurationvalue: 'USD' })
      .expect(200);
    await seenByBoth('USD');

    // authz: a caller's teams, cached per caller by each instance
    const member = await platform.token({ sub: 'scale-member' });
    const teamsOn = async (instance: ServiceProcess) =>
      (await request(instance.url).get('/core/authorization/v1/me').set('corelite-token', member).expect(200)).body.teams.map(
        (team: { team_code: string }) => team.team_code,
      );
    for (const instance of authz) expect(await teamsOn(instance)).toEqual([]);
    await api()
      .post('/authorization/v2/teams')
      .set('corelite-token', admin)
      .send({ team_code: 'SCALE-TEAM', org_code: 'scale-org', roles: [] })
      .expect(201);
    await api()
      .post('/authorization/v2/userteam')
      .set('corelite-token', admin)
      .send({ user_id: 'scale-member', team_code: 'SCALE-TEAM' })
      .expect(200);
    await eventually(async () => {
      for (const instance of authz) expect(await teamsOn(instance)).toEqual(['SCALE-TEAM']);
    }, 30_000);
  });

  it('runs every job exactly once, on both instances', async () => {
    const rows = 1_000;
    const jobIds: string[] = [];
    for (let i = 0; i < 6; i++) {
      const refId = await uploadGpd(
        viaGateway(),
        admin,
        'aws',
        await validGpd({ account: `acct-${i}`, rows: validRows(rows), withAssets: false }),
      );
      const enrich = await api()
        .post('/api/costasset/v1/gpd/enrich')
        .set('corelite-token', admin)
        .send({ GPDUploadRefId: [refId], provider: ['aws'], retry: 'false' })
        .expect(200);
      jobIds.push(enrich.body.jobs[0].jobId);
    }
    for (const jobId of jobIds) expect(await waitForJob(viaGateway(), admin, jobId, 120_000)).toMatchObject({ jobId, status: 'succeeded' });
    // the instances write their logs asynchronously: a job's last line can reach its file just after its record
    await eventually(async () => {
      for (const jobId of jobIds) expect({ jobId, runs: linesOf(jobId, 'job succeeded').length }).toEqual({ jobId, runs: 1 });
    }, 5_000);
    const ranOn = new Set(jobIds.flatMap((jobId) => linesOf(jobId, 'job started').map((line) => line.instance)));
    expect([...ranOn].sort()).toEqual(['costasset-1', 'costasset-2']);
    expect(await client.db().collection('cost_line_items').countDocuments({ tenantId: 'default' })).toBe(6 * rows);
    const written = await Promise.all(
      costasset.map(async (instance) =>
        total(await scrape(instance.url), 'corelite_ingestion_rows_total', { source: 'gpd', outcome: 'written' }),
      ),
    );
    expect(written[0] + written[1]).toBe(6 * rows);
  }, 180_000);

  it('finishes on the survivor a job whose instance was killed in the middle, every row exactly once', async () => {
    const rows = 20_000;
    const refId = await uploadGpd(
      viaGateway(),
      admin,
      'gcp',
      await validGpd({ provider: 'gcp', account: 'kill-acct', rows: validRows(rows), withAssets: false }),
    );
    const enrich = await api()
      .post('/api/costasset/v1/gpd/enrich')
      .set('corelite-token', admin)
      .send({ GPDUploadRefId: [refId], provider: ['gcp'], retry: 'false' })
      .expect(200);
    const jobId: string = enrich.body.jobs[0].jobId;
    await eventually(
      async () => {
        const job = (await api().get(`/api/costasset/v1/jobs/${jobId}`).set('corelite-token', admin).expect(200)).body;
        expect(job.status).toBe('running');
        expect(job.progress.done).toBeGreaterThan(0);
      },
      60_000,
      20,
    );
    const [started] = linesOf(jobId, 'job started');
    const victim = costasset.find((instance) => instance.instance === started.instance) as ServiceProcess;
    const survivor = costasset.find((instance) => instance !== victim) as ServiceProcess;
    await victim.kill();

    // the gateway moves on to the survivor: callers keep their answers
    for (let i = 0; i < 4; i++) await api().get(`/api/costasset/v1/jobs/${jobId}`).set('corelite-token', admin).expect(200);
    const done = await waitForJob(viaGateway(), admin, jobId, 120_000);
    expect(done).toMatchObject({ status: 'succeeded', result: expect.objectContaining({ rowsWritten: rows, rowsRejected: 0 }) });
    const job = (await api().get(`/api/costasset/v1/jobs/${jobId}`).set('corelite-token', admin).expect(200)).body;
    expect(job.attempts).toBeGreaterThanOrEqual(2);
    expect(linesOf(jobId, 'job succeeded').map((line) => line.instance)).toEqual([survivor.instance]);
    expect(await client.db().collection('cost_line_items').countDocuments({ tenantId: 'default', uploadRefId: refId })).toBe(rows);
    const distinct = await client.db().collection('cost_line_items').distinct('resourceId', { tenantId: 'default', uploadRefId: refId });
    expect(distinct).toHaveLength(rows);
  }, 240_000);
});
