import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import request from 'supertest';
import { BillingAccountRepository, MigrationRepository } from '../../apps/costasset/src/migration/migration.repositories';
import { eventually, Platform, startPlatform } from '../support/platform';

const ACCOUNTS = '/api/costasset/v1/migrationController/accounts/';
const STATUS = '/api/costasset/v1/migrationController/accounts/status';

interface Legacy {
  url: string;
  seen: IncomingHttpHeaders[];
  release(): void;
  close(): Promise<void>;
}

/** A legacy service on 127.0.0.1 whose answer depends on the bearer token. */
async function legacyService(): Promise<Legacy> {
  const seen: IncomingHttpHeaders[] = [];
  let release = () => undefined as void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const bodies: Record<string, unknown> = {
    'token-ok': {
      accounts: [
        { id: 'a-1', name: 'Prod', provider: 'aws', currency: 'USD', status: 'active' },
        { id: 'a-2', name: 'Dev', provider: 'aws' },
        { id: 'g-1', name: 'Data', provider: 'gcp', parentId: 'a-1' },
      ],
    },
    'token-partial': [
      { id: 'p-1', name: 'Good', provider: 'azure' },
      { id: 'p-2', provider: 'azure' },
      { id: 'p-3', name: 'Bad currency', provider: 'azure', currency: 'euro' },
      42,
    ],
  };
  const server: Server = createServer((req, res) => {
    seen.push(req.headers);
    const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    if (req.url !== '/legacy/api/v1/accounts' && req.url !== '/api/v1/accounts') return void res.writeHead(404).end();
    if (token === 'token-redirect') return void res.writeHead(302, { location: 'http://169.254.169.254/latest' }).end();
    if (!(token in bodies)) return void res.writeHead(401).end();
    const answer = () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(bodies[token]));
    if (token === 'token-ok') void gate.then(answer);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    release: () => release(),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Account migration from a legacy service. */
describe('costasset account migration', () => {
  let platform: Platform;
  let legacy: Legacy;
  let admin: string;
  let otherAdmin: string;

  const start = (body: object, token = admin, on = platform) =>
    request(on.costasset.url).post(ACCOUNTS).set('corelite-token', token).send(body);
  const status = (query = '', token = admin) => request(platform.costasset.url).get(`${STATUS}${query}`).set('corelite-token', token);
  const job = (jobId: string) =>
    request(platform.costasset.url).get(`/api/costasset/v1/jobs/${jobId}`).set('corelite-token', admin).expect(200);
  const finished = async (jobId: string, expected: string) => {
    let body: Record<string, unknown> = {};
    await eventually(async () => {
      body = (await job(jobId)).body;
      expect(body.status).toBe(expected);
    }, 30_000);
    return body;
  };
  const migrationDoc = (migrationId: string, tenantId = 'default') =>
    platform.costasset.app.get(MigrationRepository).findOne(tenantId, { migrationId });

  beforeAll(async () => {
    legacy = await legacyService();
    platform = await startPlatform({
      BOOTSTRAP_TENANTS: 'default,other',
      MIGRATION_ALLOW_PRIVATE_HOSTS: 'true',
      JOBS_RETRY_DELAY_MS: '100',
      MIGRATION_TIMEOUT_MS: '3000',
    });
    admin = await platform.token({ sub: 'admin' });
    otherAdmin = await platform.token({ sub: 'admin', tid: 'other' });
  });
  afterAll(async () => {
    legacy.release();
    await platform.close();
    await legacy.close();
  });

  it('answers 204 while there are no migration records', async () => {
    await status().expect(204);
    await status('?status=failed').expect(204);
  });

  it('refuses invalid requests and non-admins', async () => {
    expect((await start({ apiToken: 't', userName: 'u' }).expect(400)).body.code).toBe('VALIDATION_FAILED');
    expect((await start({ apiToken: 't', userName: 'u', legacyURL: 'ftp://legacy.example.com' }).expect(400)).body.code).toBe(
      'MIGRATION_URL_INVALID',
    );
    expect((await start({ apiToken: 't', userName: 'u', legacyURL: 'not a url' }).expect(400)).body.code).toBe('MIGRATION_URL_INVALID');
    expect((await status('?status=maybe').expect(400)).body.code).toBe('VALIDATION_FAILED');
    const bob = await platform.token({ sub: 'bob' });
    expect((await start({ apiToken: 't', userName: 'u', legacyURL: legacy.url }, bob).expect(403)).body.code).toBe('SYSTEM_ADMIN_REQUIRED');
    await status('', bob).expect(403);
  });

  it('imports the accounts, keeping the token sealed while the job waits and never returning it', async () => {
    const answer = await start({ apiToken: 'token-ok', userName: 'jdoe', legacyURL: `${legacy.url}/legacy/` }).expect(200);
    expect(answer.body).toEqual({ migrationId: expect.any(String), jobId: expect.any(String), status: 'started' });
    await eventually(async () => expect(legacy.seen.length).toBeGreaterThan(0));
    const waiting = await migrationDoc(answer.body.migrationId);
    expect(waiting?.sealedToken).toMatch(/^gcm1:/);
    expect(JSON.stringify(waiting)).not.toContain('token-ok');
    legacy.release();

    const done = await finished(answer.body.jobId, 'succeeded');
    expect(done.type).toBe('account-migration');
    expect(JSON.stringify(done)).not.toContain('token-ok');
    expect(legacy.seen[0]).toMatchObject({ authorization: 'Bearer token-ok', 'x-user-name': 'jdoe' });
    const stored = await migrationDoc(answer.body.migrationId);
    expect(stored).toMatchObject({ status: 'completed', succeeded: 3, failed: 0 });
    expect(stored?.sealedToken).toBeUndefined();

    const records = await status().expect(200);
    expect(JSON.stringify(records.body)).not.toContain('token-ok');
    expect(records.body.failed).toEqual([]);
    expect(records.body.nextCursor).toBeNull();
    expect(records.body.succeeded.map((r: { accountId: string; provider: string }) => `${r.provider}/${r.accountId}`).sort()).toEqual([
      'aws/a-1',
      'aws/a-2',
      'gcp/g-1',
    ]);
    await status('?status=failed').expect(204);
    // a page of records at a time, in the order they were written, in the interface's shape
    const first = await status('?limit=2').expect(200);
    expect(first.body.succeeded).toHaveLength(2);
    const second = await status(`?limit=2&cursor=${first.body.nextCursor}`).expect(200);
    expect(second.body).toEqual({ succeeded: [expect.objectContaining({ status: 'succeeded' })], failed: [], nextCursor: null });
    expect([...first.body.succeeded, ...second.body.succeeded]).toEqual(records.body.succeeded);
    const accounts = await platform.costasset.app.get(BillingAccountRepository).find('default', {}, { sort: { accountId: 1 } });
    expect(accounts.map((a) => ({ accountId: a.accountId, name: a.name, provider: a.provider, currency: a.currency }))).toEqual([
      { accountId: 'a-1', name: 'Prod', provider: 'aws', currency: 'USD' },
      { accountId: 'a-2', name: 'Dev', provider: 'aws', currency: undefined },
      { accountId: 'g-1', name: 'Data', provider: 'gcp', currency: undefined },
    ]);
    await request(platform.costasset.url).get(STATUS).set('corelite-token', otherAdmin).expect(204);
  });

  it('records the invalid records of a partly valid answer as failed, with reasons', async () => {
    const answer = await start({ apiToken: 'token-partial', userName: 'jdoe', legacyURL: legacy.url }).expect(200);
    await finished(answer.body.jobId, 'succeeded');
    const all = await status().expect(200);
    expect(all.body.succeeded).toEqual([
      { migrationId: answer.body.migrationId, accountId: 'p-1', provider: 'azure', name: 'Good', status: 'succeeded' },
    ]);
    const failed = await status('?status=failed').expect(200);
    expect(Object.keys(failed.body)).toEqual(['failed', 'nextCursor']);
    expect(failed.body.failed).toHaveLength(3);
    expect(failed.body.failed).toEqual(
      expect.arrayContaining([
        { migrationId: answer.body.migrationId, accountId: 'p-2', status: 'failed', reason: expect.stringContaining('name must be') },
        { migrationId: answer.body.migrationId, accountId: 'p-3', status: 'failed', reason: expect.stringContaining('currency') },
        { migrationId: answer.body.migrationId, accountId: '#3', status: 'failed', reason: 'the record is not an object' },
      ]),
    );
    expect(Object.keys((await status('?status=succeeded').expect(200)).body)).toEqual(['succeeded', 'nextCursor']);
    expect((await migrationDoc(answer.body.migrationId))?.sealedToken).toBeUndefined();
  });

  it('fails the job with a clear reason when the host is unreachable, refuses, or redirects', async () => {
    const unreachable = await start({ apiToken: 'secret-x', userName: 'jdoe', legacyURL: `http://127.0.0.1:${await closedPort()}` }).expect(
      200,
    );
    const failed = await finished(unreachable.body.jobId, 'failed');
    expect(failed.error).toMatch(/unreachable: the connection was refused/);
    expect(JSON.stringify(failed)).not.toContain('secret-x');
    const stored = await migrationDoc(unreachable.body.migrationId);
    expect(stored).toMatchObject({ status: 'failed', error: expect.stringMatching(/unreachable/) });
    expect(stored?.sealedToken).toBeUndefined();

    const refused = await start({ apiToken: 'wrong-token', userName: 'jdoe', legacyURL: legacy.url }).expect(200);
    expect((await finished(refused.body.jobId, 'failed')).error).toMatch(/answered 401/);
    const redirected = await start({ apiToken: 'token-redirect', userName: 'jdoe', legacyURL: legacy.url }).expect(200);
    expect((await finished(redirected.body.jobId, 'failed')).error).toMatch(/redirects are not followed/);
    await status(`?migrationId=${redirected.body.migrationId}`).expect(204);
  });

  it('refuses private, loopback and link-local hosts unless allowed', async () => {
    const strict = await startPlatform({ BOOTSTRAP_TENANTS: 'default,other' });
    try {
      const token = await strict.token({ sub: 'admin' });
      for (const legacyURL of [
        legacy.url,
        'http://localhost:8080',
        'http://10.1.2.3',
        'https://192.168.0.10',
        'http://169.254.169.254',
        'http://[::1]:80',
        'http://[fc00::1]',
        'http://[::ffff:127.0.0.1]',
        'http://0.0.0.0',
      ]) {
        const refused = await start({ apiToken: 't', userName: 'u', legacyURL }, token, strict).expect(400);
        expect(refused.body.code).toBe('MIGRATION_HOST_NOT_ALLOWED');
      }
      await request(strict.costasset.url).get(STATUS).set('corelite-token', token).expect(204);
    } finally {
      await strict.close();
    }
  });
});
