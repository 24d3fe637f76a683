import request from 'supertest';
import { CoreSettingsClient } from '../../apps/costasset/src/feature-flags/core-settings.client';
import { teamMembers } from '../support/members';
import { eventually, Platform, startPlatform } from '../support/platform';
import { expectProblem } from '../support/problems';

/** costasset's flag wrappers answer exactly what the core's flag operations answer. */
describe('costasset feature-flag wrappers', () => {
  let platform: Platform;
  let admin: string;
  /** A reader: a member of a team holding no role. */
  let bob: string;
  /** A user of the tenant in no team. */
  let loner: string;

  const wrapper = (method: 'get' | 'post' | 'put', token: string) =>
    request(platform.costasset.url)[method]('/api/costasset/v1/featureflag').set('corelite-token', token);
  const core = (token: string) =>
    request(platform.authz.url).get('/core/featureflagmanagement/v1/featureflag').set('corelite-token', token);

  beforeAll(async () => {
    platform = await startPlatform({ BOOTSTRAP_TENANTS: 'default,other' });
    admin = await platform.token({ sub: 'admin' });
    loner = await platform.token({ sub: 'loner' });
    ({ bob } = await teamMembers(platform, { code: 'READERS' }, ['bob']));
  });
  afterAll(() => platform.close());

  it('creates (201), sets (200), updates and lists flags through the core', async () => {
    expect((await wrapper('post', admin).send({ configurationkey: 'COSAMetering', configurationvalue: 'true' })).status).toBe(201);
    const again = await wrapper('post', admin).send({ configurationkey: 'COSAMetering', configurationvalue: 'false' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ configurationkey: 'COSAMetering', configurationvalue: 'false' });
    await wrapper('put', admin)
      .send({ configurationkey: 'COSAMetering', configurationvalue: 'true' })
      .expect(200, { configurationkey: 'COSAMetering', configurationvalue: 'true' });
    const viaWrapper = (await wrapper('get', bob).expect(200)).body;
    expect(viaWrapper).toEqual((await core(bob).expect(200)).body);
    expect(viaWrapper).toContainEqual({ configurationkey: 'COSAMetering', configurationvalue: 'true' });
  });

  it('passes the core problems through and checks the caller', async () => {
    const missing = await wrapper('put', admin).send({ configurationkey: 'NEVER_SET', configurationvalue: 'true' });
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('FLAG_NOT_FOUND');
    expect((await wrapper('post', admin).send({ configurationkey: 'X', configurationvalue: 'yes' })).body.code).toBe('VALIDATION_FAILED');
    expect((await wrapper('post', admin).send({ flag_key: 'X', flag_value: 'true' })).body.code).toBe('VALIDATION_FAILED');
    expectProblem(await wrapper('post', bob).send({ configurationkey: 'X', configurationvalue: 'true' }), 403, 'SYSTEM_ADMIN_REQUIRED');
    expectProblem(await wrapper('get', loner), 403, 'TEAM_REQUIRED');
  });

  it('sets flags through the insights housekeeping configuration', async () => {
    const res = await request(platform.costasset.url)
      .post('/insights/v2/housekeeping/configuration')
      .set('corelite-token', admin)
      .send({ BCM_813715_AWSRI: 'true', BCM_3243_InsightsNewLayout: 'true' })
      .expect(200);
    expect(res.body).toEqual([
      { configurationkey: 'BCM_813715_AWSRI', configurationvalue: 'true' },
      { configurationkey: 'BCM_3243_InsightsNewLayout', configurationvalue: 'true' },
    ]);
    expect((await core(admin).expect(200)).body).toContainEqual({ configurationkey: 'BCM_813715_AWSRI', configurationvalue: 'true' });
    const bad = await request(platform.costasset.url)
      .post('/insights/v2/housekeeping/configuration')
      .set('corelite-token', admin)
      .send({ 'bad key!': 'maybe' });
    expect(bad.status).toBe(400);
  });

  it('sees a flag flipped in the core without a restart, per tenant', async () => {
    const settings = platform.costasset.app.get(CoreSettingsClient);
    expect(await settings.isEnabled('default', 'COMMON_DISCOVERY')).toBe(false);
    await request(platform.authz.url)
      .post('/core/featureflagmanagement/v1/featureflag')
      .set('corelite-token', admin)
      .send({ flag_key: 'COMMON_DISCOVERY', flag_value: 'true' })
      .expect(201);
    await eventually(async () => expect(await settings.isEnabled('default', 'COMMON_DISCOVERY')).toBe(true));
    expect(await settings.isEnabled('other', 'COMMON_DISCOVERY')).toBe(false);
    await request(platform.authz.url)
      .put('/core/configuration/v1/configvalues')
      .set('corelite-token', admin)
      .send({ configurationkey: 'SUPPORTED_CD_PROVIDERS', configurationvalue: ['aws', 'azure'] })
      .expect(200);
    await eventually(async () => expect(await settings.listValue('default', 'SUPPORTED_CD_PROVIDERS')).toEqual(['aws', 'azure']));
    const otherAdmin = await platform.token({ sub: 'admin', tid: 'other' });
    expect((await wrapper('get', otherAdmin).expect(200)).body).toEqual([]);
  });
});
