import { randomUUID } from 'node:crypto';
import { getConnectionToken } from '@nestjs/mongoose';
import type { Connection } from 'mongoose';
import request from 'supertest';
import { KeysChanged, MessageBus } from '@lib/messaging';
import { LdapSettingsSource } from '../../apps/authz/src/directory/ldap-settings';
import { teamMembers } from '../support/members';
import { eventually, Platform, startPlatform } from '../support/platform';
import { expectProblem } from '../support/problems';
import { NatsProbe, natsProbe } from '../support/nats-probe';

const CONFIG = '/core/configuration/v1/configvalues';
const AUDIT = '/core/authorization/v1/audit';
const MASK = '********';
const SECRET = `Sup3r-${randomUUID()}`;
const LDAP = {
  base: 'dc=corelite,dc=local',
  host: 'ldap.example.com:389',
  username: 'cn=admin,dc=corelite,dc=local',
  password: SECRET,
  useSSL: false,
};

describe('core configuration values', () => {
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
    await bus.subscribe('core.config.changed', (event) => void changes.push(event));
  });
  afterAll(async () => {
    await probe?.close();
    await platform?.close();
  });

  const put = (token: string, body: object) => request(platform.authz.url).put(CONFIG).set('corelite-token', token).send(body);
  const get = (token: string, key = '') =>
    request(platform.authz.url)
      .get(key ? `${CONFIG}/${encodeURIComponent(key)}` : CONFIG)
      .set('corelite-token', token);
  const rawLdapDocument = () =>
    platform.authz.app
      .get<Connection>(getConnectionToken())
      .collection('config_values')
      .findOne({ tenantId: 'default', key: '_ldap_config' });

  it('upserts a list-valued key and reads it back, by key and in the list, for any member of the tenant', async () => {
    const providers = ['aws', 'azure', 'gcp', 'oci', 'ibm'];
    const created = await put(admin, { configurationkey: 'SUPPORTED_CD_PROVIDERS', configurationvalue: providers }).expect(200);
    expect(created.body).toEqual({ configurationkey: 'SUPPORTED_CD_PROVIDERS', configurationvalue: providers });
    await put(admin, { configurationkey: 'SUPPORTED_CD_PROVIDERS', configurationvalue: ['aws', 'gcp'] }).expect(200);

    expect((await get(bob, 'SUPPORTED_CD_PROVIDERS').expect(200)).body).toEqual({
      configurationkey: 'SUPPORTED_CD_PROVIDERS',
      configurationvalue: ['aws', 'gcp'],
    });
    const list = await get(bob).expect(200);
    expect(list.body).toContainEqual({ configurationkey: 'SUPPORTED_CD_PROVIDERS', configurationvalue: ['aws', 'gcp'] });

    expectProblem(await get(loner, 'SUPPORTED_CD_PROVIDERS'), 403, 'TEAM_REQUIRED');
    expectProblem(await get(loner), 403, 'TEAM_REQUIRED');
  });

  const cases: [string, unknown, string[] | undefined][] = [
    ['SUPPORTED_CD_PROVIDERS', ['aws', 'azure'], undefined],
    ['SUPPORTED_CD_PROVIDERS', 'aws', ['configurationvalue']],
    ['SUPPORTED_CD_PROVIDERS', ['aws', 'AWS'], ['configurationvalue.1']],
    ['COMPLETE_ENRICHMENT_COLLECTOR_PROVIDERS', ['aws'], undefined],
    ['COMPLETE_ENRICHMENT_COLLECTOR_PROVIDERS', ['aws', 'aws'], ['configurationvalue.1']],
    ['COMPLETE_ENRICHMENT_COLLECTOR_PROVIDERS', [1], ['configurationvalue.0']],
    ['INSTANCE_CURRENCIES', ['EUR', 'USD', 'GBP'], undefined],
    ['INSTANCE_CURRENCIES', ['EUR', 'usd'], ['configurationvalue.1']],
    ['INSTANCE_CURRENCIES', ['EUR', 'EUR'], ['configurationvalue.1']],
    ['INSTANCE_CURRENCIES', [], ['configurationvalue']],
    ['DEFAULT_CURRENCY', 'EURO', ['configurationvalue']],
    ['DEFAULT_CURRENCY', ['EUR'], ['configurationvalue']],
    ['CURRENCY_EXCHANGE_RATES', { USD: 0.92, GBP: 1.17 }, undefined],
    [
      'CURRENCY_EXCHANGE_RATES',
      { USD: -1, usd: 1, GBP: '1.1' },
      ['configurationvalue.USD', 'configurationvalue.usd', 'configurationvalue.GBP'],
    ],
    ['CURRENCY_EXCHANGE_RATES', ['USD'], ['configurationvalue']],
    ['UI_THEME', 'dark', undefined],
    ['UI_THEMES', ['dark', 'light'], undefined],
    ['UI_THEME', 42, ['configurationvalue']],
    ['UI_THEME', { a: 'b' }, ['configurationvalue']],
    ['UI_THEMES', ['dark', 1], ['configurationvalue.1']],
    ['UI_THEME', 'x'.repeat(64 * 1024 + 1), ['configurationvalue']],
    ['_ldap_config', { ...LDAP, useSSL: undefined }, ['configurationvalue.useSSL']],
    ['_ldap_config', { ...LDAP, host: 'http://ldap.example.com', base: '' }, ['configurationvalue.host', 'configurationvalue.base']],
    ['_ldap_config', { ...LDAP, port: 389 }, ['configurationvalue.port']],
    ['_ldap_config', 'ldap://ldap.example.com', ['configurationvalue']],
  ];
  const describeCase = ([key, value, fields]: (typeof cases)[number]) =>
    `${key} = ${JSON.stringify(value).slice(0, 60)} → ${fields ? fields.join(', ') : 'stored'}`;

  it.each(cases.map((c) => [describeCase(c), ...c] as const))('%s', async (_title, key, value, fields) => {
    const res = await put(admin, { configurationkey: key, configurationvalue: value });
    if (!fields) {
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ configurationkey: key, configurationvalue: value });
    } else {
      expectProblem(res, 400, 'VALIDATION_FAILED', fields);
      expect(JSON.stringify(res.body)).not.toContain(SECRET);
    }
  });

  it('refuses a bad key, a missing value and unknown fields', async () => {
    expectProblem(await put(admin, { configurationkey: 'bad key!', configurationvalue: 'x' }), 400, 'VALIDATION_FAILED', [
      'configurationkey',
    ]);
    expectProblem(await put(admin, { configurationkey: 'X'.repeat(129), configurationvalue: 'x' }), 400, 'VALIDATION_FAILED', [
      'configurationkey',
    ]);
    expectProblem(await put(admin, { configurationkey: 'UI_THEME' }), 400, 'VALIDATION_FAILED', ['configurationvalue']);
    expectProblem(
      await put(admin, { configurationkey: 'UI_THEME', configurationvalue: 'x', tenantId: 'other' }),
      400,
      'VALIDATION_FAILED',
      ['tenantId'],
    );
    expectProblem(await get(admin, 'bad key!'), 400, 'VALIDATION_FAILED', ['key']);
  });

  it('keeps DEFAULT_CURRENCY one of INSTANCE_CURRENCIES, whichever changes', async () => {
    await put(admin, { configurationkey: 'INSTANCE_CURRENCIES', configurationvalue: ['EUR', 'USD'] }).expect(200);
    expectProblem(await put(admin, { configurationkey: 'DEFAULT_CURRENCY', configurationvalue: 'GBP' }), 400, 'VALIDATION_FAILED', [
      'configurationvalue',
    ]);
    await put(admin, { configurationkey: 'DEFAULT_CURRENCY', configurationvalue: 'EUR' }).expect(200);
    expectProblem(await put(admin, { configurationkey: 'INSTANCE_CURRENCIES', configurationvalue: ['USD'] }), 400, 'VALIDATION_FAILED', [
      'configurationvalue',
    ]);
    await put(admin, { configurationkey: 'INSTANCE_CURRENCIES', configurationvalue: ['USD', 'EUR', 'JPY'] }).expect(200);
    expect((await get(bob, 'DEFAULT_CURRENCY').expect(200)).body).toEqual({
      configurationkey: 'DEFAULT_CURRENCY',
      configurationvalue: 'EUR',
    });
  });

  it('lets only a System Admin write, and answers 404 for a missing key', async () => {
    expectProblem(await put(bob, { configurationkey: 'UI_THEME', configurationvalue: 'pink' }), 403, 'SYSTEM_ADMIN_REQUIRED');
    expectProblem(await put(loner, { configurationkey: 'UI_THEME', configurationvalue: 'pink' }), 403, 'SYSTEM_ADMIN_REQUIRED');
    expectProblem(
      await request(platform.authz.url).put(CONFIG).send({ configurationkey: 'UI_THEME', configurationvalue: 'pink' }),
      401,
      'TOKEN_MISSING',
    );
    expectProblem(await get(bob, 'NEVER_SET'), 404, 'CONFIG_NOT_FOUND');
  });

  it('encrypts the _ldap_config password at rest and masks it on every read', async () => {
    const created = await put(admin, { configurationkey: '_ldap_config', configurationvalue: LDAP }).expect(200);
    expect(created.body).toEqual({ configurationkey: '_ldap_config', configurationvalue: { ...LDAP, password: MASK } });

    const raw = await rawLdapDocument();
    expect(raw?.value.password).toMatch(/^gcm1:/);
    expect(JSON.stringify(raw)).not.toContain(SECRET);

    for (const res of [await get(admin, '_ldap_config').expect(200), await get(admin).expect(200)]) {
      expect(JSON.stringify(res.body)).not.toContain(SECRET);
      expect(JSON.stringify(res.body)).toContain(`"password":"${MASK}"`);
    }
    await expect(platform.authz.app.get(LdapSettingsSource).forTenant('default')).resolves.toEqual(LDAP);
  });

  it('keeps the stored password when ******** is sent back, and replaces it when a new one is sent', async () => {
    const read = await get(admin, '_ldap_config').expect(200);
    const sealedBefore = (await rawLdapDocument())?.value.password;
    const roundTrip = { ...read.body.configurationvalue, host: 'ldaps://ldap.example.com:636', useSSL: true };
    await put(admin, { configurationkey: '_ldap_config', configurationvalue: roundTrip }).expect(200);
    expect((await rawLdapDocument())?.value.password).toBe(sealedBefore);
    await expect(platform.authz.app.get(LdapSettingsSource).forTenant('default')).resolves.toEqual({ ...roundTrip, password: SECRET });

    await put(admin, { configurationkey: '_ldap_config', configurationvalue: { ...roundTrip, password: 'rotated-secret' } }).expect(200);
    await expect(platform.authz.app.get(LdapSettingsSource).forTenant('default')).resolves.toMatchObject({ password: 'rotated-secret' });
    await put(admin, { configurationkey: '_ldap_config', configurationvalue: { ...LDAP } }).expect(200);

    const noneStored = await put(otherAdmin, { configurationkey: '_ldap_config', configurationvalue: { ...LDAP, password: MASK } });
    expectProblem(noneStored, 400, 'VALIDATION_FAILED', ['configurationvalue.password']);
    await expect(platform.authz.app.get(LdapSettingsSource).forTenant('other')).resolves.toBeNull();
  });

  it('keeps _ldap_config from users who are not System Admins', async () => {
    expectProblem(await get(bob, '_ldap_config'), 403, 'SYSTEM_ADMIN_REQUIRED');
    const keys = (await get(bob).expect(200)).body.map((entry: { configurationkey: string }) => entry.configurationkey);
    expect(keys).toContain('SUPPORTED_CD_PROVIDERS');
    expect(keys).not.toContain('_ldap_config');
  });

  it('never shows one tenant the values of another', async () => {
    expectProblem(await get(otherAdmin, 'SUPPORTED_CD_PROVIDERS'), 404, 'CONFIG_NOT_FOUND');
    expect((await get(otherAdmin).expect(200)).body).toEqual([]);
    await put(otherAdmin, { configurationkey: 'SUPPORTED_CD_PROVIDERS', configurationvalue: ['azure'] }).expect(200);
    expect((await get(otherAdmin).expect(200)).body).toEqual([
      { configurationkey: 'SUPPORTED_CD_PROVIDERS', configurationvalue: ['azure'] },
    ]);
    expect((await get(admin, 'SUPPORTED_CD_PROVIDERS').expect(200)).body.configurationvalue).toEqual(['aws', 'azure']);
    expectProblem(await get(otherAdmin, '_ldap_config'), 404, 'CONFIG_NOT_FOUND');
  });

  it('answers core.config.get over NATS, masked and per tenant, and announces every change', async () => {
    await expect(bus.request('core.config.get', { tenantId: 'default', key: 'INSTANCE_CURRENCIES' })).resolves.toEqual({
      key: 'INSTANCE_CURRENCIES',
      value: ['USD', 'EUR', 'JPY'],
    });
    await expect(bus.request('core.config.get', { tenantId: 'default', key: 'NEVER_SET' })).resolves.toEqual({
      key: 'NEVER_SET',
      value: null,
    });
    await expect(bus.request('core.config.get', { tenantId: 'other', key: 'INSTANCE_CURRENCIES' })).resolves.toEqual({
      key: 'INSTANCE_CURRENCIES',
      value: null,
    });
    const ldap = await bus.request('core.config.get', { tenantId: 'default', key: '_ldap_config' });
    expect(ldap.value).toEqual({ ...LDAP, password: MASK });
    await expect(bus.request('core.config.get', { tenantId: 'default', key: 'bad key!' })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });

    await put(admin, { configurationkey: 'UI_LANGUAGE', configurationvalue: 'de' }).expect(200);
    await eventually(async () => expect(changes).toContainEqual({ tenantId: 'default', keys: ['UI_LANGUAGE'] }));
    expect(changes).toContainEqual({ tenantId: 'other', keys: ['SUPPORTED_CD_PROVIDERS'] });
    expect(changes.some((event) => event.keys.includes('NEVER_SET'))).toBe(false);
  });

  it('records every change in the audit log, readable by a System Admin with the password masked', async () => {
    const all = await request(platform.authz.url)
      .get(AUDIT)
      .query({ resource: 'configvalue', limit: 200 })
      .set('corelite-token', admin)
      .expect(200);
    expect(JSON.stringify(all.body)).not.toContain(SECRET);
    expect(JSON.stringify(all.body)).not.toContain('rotated-secret');
    // Newest first: reverse to read the history of the directory entry in order.
    const ldapRecords = all.body.items.filter((item: { resourceId: string }) => item.resourceId === '_ldap_config').reverse();
    expect(ldapRecords[0]).toMatchObject({
      actor: 'admin',
      action: 'create',
      resource: 'configvalue',
      after: { configurationkey: '_ldap_config', configurationvalue: { password: MASK } },
    });
    expect(ldapRecords[0]).not.toHaveProperty('before');
    expect(ldapRecords[1]).toMatchObject({
      action: 'update',
      before: { configurationvalue: { host: LDAP.host, password: MASK } },
      after: { configurationvalue: { useSSL: true } },
    });
    expect(all.body.items.every((item: { resource: string }) => item.resource === 'configvalue')).toBe(true);

    const updates = await request(platform.authz.url)
      .get(AUDIT)
      .query({ resource: 'configvalue', action: 'update' })
      .set('corelite-token', admin)
      .expect(200);
    expect(updates.body.items.length).toBeGreaterThan(0);
    expect(updates.body.items.every((item: { action: string }) => item.action === 'update')).toBe(true);

    const first = await request(platform.authz.url).get(AUDIT).query({ limit: 2 }).set('corelite-token', admin).expect(200);
    expect(first.body.items).toHaveLength(2);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await request(platform.authz.url)
      .get(AUDIT)
      .query({ limit: 2, cursor: first.body.nextCursor })
      .set('corelite-token', admin)
      .expect(200);
    expect(second.body.items[0].id).not.toBe(first.body.items[1].id);
    expect(second.body.items[0].at <= first.body.items[1].at).toBe(true);

    const other = await request(platform.authz.url).get(AUDIT).set('corelite-token', otherAdmin).expect(200);
    expect(other.body.items.map((item: { resourceId: string }) => item.resourceId)).toEqual(['SUPPORTED_CD_PROVIDERS']);
    expect(other.body.nextCursor).toBeNull();

    expectProblem(await request(platform.authz.url).get(AUDIT).set('corelite-token', bob), 403, 'SYSTEM_ADMIN_REQUIRED');
    expectProblem(await request(platform.authz.url).get(AUDIT).query({ limit: 0 }).set('corelite-token', admin), 400, 'VALIDATION_FAILED', [
      'limit',
    ]);
    expectProblem(
      await request(platform.authz.url).get(AUDIT).query({ limit: 1001 }).set('corelite-token', admin),
      400,
      'VALIDATION_FAILED',
      ['limit'],
    );
    expectProblem(
      await request(platform.authz.url).get(AUDIT).query({ cursor: 'nope' }).set('corelite-token', admin),
      400,
      'VALIDATION_FAILED',
      ['cursor'],
    );
  });
});
