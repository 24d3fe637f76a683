import request from 'supertest';
import { seedLineItems } from '../support/line-item-seed';
import { teamMembers } from '../support/members';
import { eventually, Platform, startPlatform } from '../support/platform';
import { expectProblem } from '../support/problems';

const ITEMS = '/api/costasset/v1/costLineItems';

/** Reading line items: field filters, `expr`, and the caller's visibility groups, combined so none can widen another. */
describe('costasset line items: filters and visibility', () => {
  let platform: Platform;
  let admin: string;
  let alice: string;
  let bob: string;

  const read = (token: string, query: Record<string, string> = {}) =>
    request(platform.costasset.url).get(ITEMS).query(query).set('corelite-token', token);
  const providers = (res: request.Response) => res.body.items.map((item: { providerName: string }) => item.providerName).sort();

  beforeAll(async () => {
    platform = await startPlatform({ BOOTSTRAP_TENANTS: 'default,other' });
    admin = await platform.token({ sub: 'admin' });
    alice = await platform.token({ sub: 'alice' });
    // bob is in a team that no visibility group names
    ({ bob } = await teamMembers(platform, { code: 'READERS' }, ['bob']));
    const authz = (path: string, body: object) =>
      request(platform.authz.url)
        .post(path)
        .set('corelite-token', admin)
        .send(body)
        .expect((res) => expect(res.status).toBeLessThan(300));
    await authz('/authorization/v2/teams', { team_code: 'AWS-TEAM', org_code: 'org', roles: [] });
    await authz('/authorization/v2/users', { user_id: 'alice' });
    await authz('/authorization/v2/userteam', { user_id: 'alice', team_code: 'AWS-TEAM' });
    await request(platform.costasset.url)
      .post('/api/costasset/v1/dynamicResourceGroups')
      .set('corelite-token', admin)
      .send({ _id: 'aws', type: 'visibility', expr: 'providerName == "aws"', context: { teams: ['AWS-TEAM'] } })
      .expect(200);
    await seedLineItems(platform, 'default', [
      { providerName: 'aws', billingAccountId: 'prod', category: 'Compute', region: 'eu', period: '202410', cost: 1 },
      { providerName: 'aws', billingAccountId: 'dev', category: 'Storage', region: 'us', period: '202410', cost: 2 },
      { providerName: 'azure', billingAccountId: 'prod', category: 'Compute', region: 'eu', period: '202410', cost: 3 },
    ]);
    await seedLineItems(platform, 'other', [
      { providerName: 'aws', billingAccountId: 'prod', category: 'Compute', region: 'eu', period: '202410', cost: 9 },
    ]);
  });
  afterAll(() => platform.close());

  it('shows a System Admin everything of its tenant, with field filters and expr', async () => {
    expect(providers(await read(admin).expect(200))).toEqual(['aws', 'aws', 'azure']);
    expect(providers(await read(admin, { providerName: 'azure' }).expect(200))).toEqual(['azure']);
    expect(providers(await read(admin, { expr: 'category == "Compute" && billingAccountId != "dev"' }).expect(200))).toEqual([
      'aws',
      'azure',
    ]);
    const bad = await read(admin, { expr: 'category == ' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'INVALID_EXPRESSION', position: expect.any(Number) });
    expect((await read(admin, { expr: 'providerName == "x" || yes' })).status).toBe(400);
    expect(providers(await read(admin, { expr: 'providerName == "x" || true' }).expect(200))).toEqual(['aws', 'aws', 'azure']);
    expect((await read(admin, { providerName: { $ne: 'x' } as never })).status).toBe(400);
  });

  it('limits a member to its visibility groups, whatever filter or expression it sends', async () => {
    await eventually(async () => expect(providers(await read(alice).expect(200))).toEqual(['aws', 'aws']));
    expect(providers(await read(alice, { providerName: 'azure' }).expect(200))).toEqual([]);
    expect(providers(await read(alice, { expr: 'providerName == "azure" || providerName == "aws"' }).expect(200))).toEqual(['aws', 'aws']);
    expect(providers(await read(alice, { expr: '!(providerName == "aws")' }).expect(200))).toEqual([]);
  });

  it('shows nothing to a member no visibility group names, and refuses a user in no team', async () => {
    expect((await read(bob).expect(200)).body).toEqual({ items: [], nextCursor: null });
    expectProblem(await read(await platform.token({ sub: 'loner' })), 403, 'TEAM_REQUIRED');
  });

  it('never shows another tenant', async () => {
    const otherAdmin = await platform.token({ sub: 'admin', tid: 'other' });
    const res = await read(otherAdmin).expect(200);
    expect(res.body.items.map((item: { cost: number }) => item.cost)).toEqual([9]);
  });
});
