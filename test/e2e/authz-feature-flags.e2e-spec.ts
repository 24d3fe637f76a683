import request from 'supertest';
import { KeysChanged, MessageBus } from '@lib/messaging';
import { teamMembers } from '../support/members';
import { eventually, Platform, startPlatform } from '../support/platform';
import { expectProblem } from '../support/problems';
import { NatsProbe, natsProbe } from '../support/nats-probe';

const FLAGS = '/core/featureflagmanagement/v1/featureflag';
const AUDIT = '/core/authorization/v1/audit';

describe('feature flags', () => {
  let platform: Platform;
  let admin: string;
  /** A reader: a member of a team holding no role. */
  let bob: string;
  /** A user of the tenant in no team. */
  let loner: string;
  let otherAdmin: string;
  let probe: NatsProbe | undefined;
  let bus: MessageBus;
  const changes: KeysChanged[] = [];

  beforeAll(async () => {
    platform = await startPlatform({ BOOTSTRAP_TENANTS: 'default,other' });
    [admin, loner, otherAdmin] = await Promise.all([
      platform.token({ sub: 'admin' }),
      platform.token({ sub: 'loner' }),
      platform.token({ sub: 'admin', tid: 'other' }),
    ]);
    ({ bob } = await teamMembers(platform, { code: 'READERS' }, ['bob']));
    probe = await natsProbe(platform);
    bus = probe.bus;
    await bus.subscribe('core.flags.changed', (event) => void changes.push(event));
  });
  afterAll(async () => {
    await probe?.close();
    await platform?.close();
  });

  const post = (token: string, body: object) => request(platform.authz.url).post(FLAGS).set('corelite-token', token).send(body);
  const put = (token: string, key: string, body: object) =>
    request(platform.authz.url)
      .put(`${FLAGS}/${encodeURIComponent(key)}`)
      .set('corelite-token', token)
      .send(body);
  const list = (token: string) => request(platform.authz.url).get(FLAGS).set('corelite-token', token);

  it('creates a flag with either body shape (201), and sets an existing one (200)', async () => {
    const created = await post(admin, { flag_key: 'COMMON_DISCOVERY', flag_value: 'true' }).expect(201);
    expect(created.body).toEqual({ configurationkey: 'COMMON_DISCOVERY', configurationvalue: 'true' });
    const createdToo = await post(admin, { configurationkey: 'COSAMetering', configurationvalue: 'false' }).expect(201);
    expect(createdToo.body).toEqual({ configurationkey: 'COSAMetering', configurationvalue: 'false' });

    const set = await post(admin, { configurationkey: 'COMMON_DISCOVERY', configurationvalue: 'false' }).expect(200);
    expect(set.body).toEqual({ configurationkey: 'COMMON_DISCOVERY', configurationvalue: 'false' });
    await post(admin, { flag_key: 'COMMON_DISCOVERY', flag_value: 'true' }).expect(200);

    expect((await list(bob).expect(200)).body).toEqual([
      { configurationkey: 'COMMON_DISCOVERY', configurationvalue: 'true' },
      { configurationkey: 'COSAMetering', configurationvalue: 'false' },
    ]);
  });

  it('sets an existing flag with PUT in either shape, the key from the path', async () => {
    expect((await put(admin, 'COSAMetering', { configurationkey: 'COSAMetering', configurationvalue: 'true' }).expect(200)).body).toEqual({
      configurationkey: 'COSAMetering',
      configurationvalue: 'true',
    });
    expect((await put(admin, 'COSAMetering', { flag_key: 'COSAMetering', flag_value: 'false' }).expect(200)).body).toEqual({
      configurationkey: 'COSAMetering',
      configurationvalue: 'false',
    });
    expect((await put(admin, 'COSAMetering', { flag_value: 'true' }).expect(200)).body).toEqual({
      configurationkey: 'COSAMetering',
      configurationvalue: 'true',
    });
    expect((await list(admin).expect(200)).body).toContainEqual({ configurationkey: 'COSAMetering', configurationvalue: 'true' });

    expectProblem(
      await put(admin, 'COSAMetering', { configurationkey: 'COMMON_DISCOVERY', configurationvalue: 'true' }),
      400,
      'FLAG_KEY_MISMATCH',
    );
    expectProblem(await put(admin, 'COSAMetering', { flag_key: 'cosametering', flag_value: 'true' }), 400, 'FLAG_KEY_MISMATCH');
    expectProblem(await put(admin, 'BCM_3243_InsightsNewLayout', { flag_value: 'true' }), 404, 'FLAG_NOT_FOUND');
    expect((await list(admin).expect(200)).body.map((f: { configurationkey: string }) => f.configurationkey)).not.toContain(
      'BCM_3243_InsightsNewLayout',
    );
  });

  it.each([
    ['a boolean instead of a string', { flag_key: 'X_FLAG', flag_value: true }, ['flag_value']],
    ['another string', { configurationkey: 'X_FLAG', configurationvalue: 'yes' }, ['configurationvalue']],
    ['upper-case TRUE', { flag_key: 'X_FLAG', flag_value: 'TRUE' }, ['flag_value']],
    ['a list', { configurationkey: 'X_FLAG', configurationvalue: ['true'] }, ['configurationvalue']],
    ['both shapes mixed', { flag_key: 'X_FLAG', configurationvalue: 'true' }, ['flag_key', 'configurationvalue']],
    [
      'both shapes complete',
      { flag_key: 'X_FLAG', flag_value: 'true', configurationkey: 'X_FLAG', configurationvalue: 'true' },
      ['flag_key', 'flag_value', 'configurationkey', 'configurationvalue'],
    ],
    ['no key', { flag_value: 'true' }, ['flag_key']],
    ['no value', { configurationkey: 'X_FLAG' }, ['configurationvalue']],
    ['an empty body', {}, ['configurationkey', 'configurationvalue']],
    ['a bad key', { flag_key: 'bad key!', flag_value: 'true' }, ['flag_key']],
    ['an unknown field', { flag_key: 'X_FLAG', flag_value: 'true', enabled: true }, ['enabled']],
  ])('POST refuses %s with 400', async (_case, body, fields) => {
    expectProblem(await post(admin, body), 400, 'VALIDATION_FAILED', fields);
  });

  it('PUT refuses invalid values and bodies with 400', async () => {
    expectProblem(await put(admin, 'COSAMetering', { flag_value: 'on' }), 400, 'VALIDATION_FAILED', ['flag_value']);
    expectProblem(await put(admin, 'COSAMetering', { flag_value: 'true', configurationvalue: 'true' }), 400, 'VALIDATION_FAILED', [
      'flag_value',
      'configurationvalue',
    ]);
    expectProblem(await put(admin, 'COSAMetering', {}), 400, 'VALIDATION_FAILED', ['configurationvalue']);
    expectProblem(await put(admin, 'bad key!', { flag_value: 'true' }), 400, 'VALIDATION_FAILED', ['configurationKey']);
    expect((await list(admin).expect(200)).body.map((f: { configurationkey: string }) => f.configurationkey)).not.toContain('X_FLAG');
  });

  it('lets only a System Admin write flags; any member of a team reads them, a user in no team does not', async () => {
    expectProblem(await post(bob, { flag_key: 'BOB_FLAG', flag_value: 'true' }), 403, 'SYSTEM_ADMIN_REQUIRED');
    expectProblem(await put(bob, 'COSAMetering', { flag_value: 'false' }), 403, 'SYSTEM_ADMIN_REQUIRED');
    expectProblem(await post(loner, { flag_key: 'LONER_FLAG', flag_value: 'true' }), 403, 'SYSTEM_ADMIN_REQUIRED');
    expectProblem(await request(platform.authz.url).get(FLAGS), 401, 'TOKEN_MISSING');
    expect((await list(bob).expect(200)).body).toContainEqual({ configurationkey: 'COSAMetering', configurationvalue: 'true' });
    expectProblem(await list(loner), 403, 'TEAM_REQUIRED');
  });

  it('never shows one tenant the flags of another', async () => {
    expect((await list(otherAdmin).expect(200)).body).toEqual([]);
    expectProblem(await put(otherAdmin, 'COSAMetering', { flag_value: 'false' }), 404, 'FLAG_NOT_FOUND');
    await post(otherAdmin, { flag_key: 'COSAMetering', flag_value: 'false' }).expect(201);
    expect((await list(otherAdmin).expect(200)).body).toEqual([{ configurationkey: 'COSAMetering', configurationvalue: 'false' }]);
    expect((await list(admin).expect(200)).body).toContainEqual({ configurationkey: 'COSAMetering', configurationvalue: 'true' });
  });

  it('serves core.flags.list and core.flags.set over NATS with the same rules, and announces every change', async () => {
    await expect(bus.request('core.flags.list', { tenantId: 'other' })).resolves.toEqual({
      flags: [{ configurationkey: 'COSAMetering', configurationvalue: 'false' }],
    });

    const created = await bus.request('core.flags.set', {
      tenantId: 'default',
      key: 'TRANSFORM_PARQUET',
      value: 'true',
      actor: 'carol',
      mode: 'create',
    });
    expect(created).toEqual({ flag: { configurationkey: 'TRANSFORM_PARQUET', configurationvalue: 'true' }, created: true });
    const updated = await bus.request('core.flags.set', {
      tenantId: 'default',
      key: 'TRANSFORM_PARQUET',
      value: 'false',
      actor: 'carol',
      mode: 'update',
    });
    expect(updated).toEqual({ flag: { configurationkey: 'TRANSFORM_PARQUET', configurationvalue: 'false' }, created: false });
    expect((await list(bob).expect(200)).body).toContainEqual({ configurationkey: 'TRANSFORM_PARQUET', configurationvalue: 'false' });
    const listed = await bus.request('core.flags.list', { tenantId: 'default' });
    expect(listed.flags).toContainEqual({ configurationkey: 'TRANSFORM_PARQUET', configurationvalue: 'false' });

    await expect(
      bus.request('core.flags.set', { tenantId: 'default', key: 'NEVER_CREATED', value: 'true', actor: 'carol', mode: 'update' }),
    ).rejects.toMatchObject({ code: 'FLAG_NOT_FOUND' });
    await expect(
      bus.request('core.flags.set', { tenantId: 'default', key: 'TRANSFORM_PARQUET', value: 'yes', actor: 'carol', mode: 'create' }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(
      bus.request('core.flags.set', { tenantId: 'default', key: 'bad key!', value: 'true', actor: 'carol', mode: 'create' }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(
      bus.request('core.flags.set', { tenantId: 'default', key: 'TRANSFORM_PARQUET', value: 'true', actor: '', mode: 'create' }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });

    await eventually(async () => {
      expect(changes).toContainEqual({ tenantId: 'default', keys: ['TRANSFORM_PARQUET'] });
      expect(changes).toContainEqual({ tenantId: 'default', keys: ['COMMON_DISCOVERY'] });
      expect(changes).toContainEqual({ tenantId: 'other', keys: ['COSAMetering'] });
    });
    expect(changes.some((event) => event.keys.includes('NEVER_CREATED') || event.keys.includes('X_FLAG'))).toBe(false);
  });

  it('records every flag change in the audit log, with the acting user', async () => {
    const res = await request(platform.authz.url)
      .get(AUDIT)
      .query({ resource: 'featureflag', limit: 200 })
      .set('corelite-token', admin)
      .expect(200);
    // the audit log is newest first: reverse to read each history in order
    const history = [...res.body.items].reverse();
    const parquet = history.filter((item: { resourceId: string }) => item.resourceId === 'TRANSFORM_PARQUET');
    expect(parquet).toEqual([
      expect.objectContaining({
        actor: 'carol',
        action: 'create',
        after: { configurationkey: 'TRANSFORM_PARQUET', configurationvalue: 'true' },
      }),
      expect.objectContaining({
        actor: 'carol',
        action: 'update',
        before: { configurationkey: 'TRANSFORM_PARQUET', configurationvalue: 'true' },
        after: { configurationkey: 'TRANSFORM_PARQUET', configurationvalue: 'false' },
      }),
    ]);
    const metering = history.filter((item: { resourceId: string }) => item.resourceId === 'COSAMetering');
    expect(metering.map((item: { action: string; actor: string }) => `${item.actor}:${item.action}`)).toEqual([
      'admin:create',
      'admin:update',
      'admin:update',
      'admin:update',
    ]);
    const other = await request(platform.authz.url)
      .get(AUDIT)
      .query({ resource: 'featureflag' })
      .set('corelite-token', otherAdmin)
      .expect(200);
    expect(other.body.items).toEqual([
      expect.objectContaining({
        resourceId: 'COSAMetering',
        action: 'create',
        after: { configurationkey: 'COSAMetering', configurationvalue: 'false' },
      }),
    ]);
  });
});
