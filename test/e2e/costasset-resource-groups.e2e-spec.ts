import request from 'supertest';
import { VisibilityService } from '../../apps/costasset/src/resource-groups/visibility.service';
import { eventually, Platform, startPlatform } from '../support/platform';

const PATH = '/api/costasset/v1/dynamicResourceGroups';

/** Dynamic resource groups: operations, statuses, versioning and visibility by team. */
describe('costasset dynamic resource groups', () => {
  let platform: Platform;
  let admin: string;
  let alice: string;
  let bob: string;

  const api = (token: string) => ({
    list: () => request(platform.costasset.url).get(PATH).set('corelite-token', token),
    create: (body: object) => request(platform.costasset.url).post(PATH).set('corelite-token', token).send(body),
    put: (body: object) => request(platform.costasset.url).put(PATH).set('corelite-token', token).send(body),
    patch: (body: object) => request(platform.costasset.url).patch(PATH).set('corelite-token', token).send(body),
    remove: (id: string) =>
      request(platform.costasset.url)
        .delete(`${PATH}/${encodeURIComponent(id)}`)
        .set('corelite-token', token),
  });

  beforeAll(async () => {
    platform = await startPlatform({ BOOTSTRAP_TENANTS: 'default,other' });
    admin = await platform.token({ sub: 'admin' });
    alice = await platform.token({ sub: 'alice' });
    bob = await platform.token({ sub: 'bob' });
    const authz = (path: string, body: object) => request(platform.authz.url).post(path).set('corelite-token', admin).send(body);
    for (const team of ['TEAM-A', 'TEAM-B'])
      await authz('/authorization/v2/teams', { team_code: team, org_code: 'org-1', roles: [] }).expect(201);
    await authz('/authorization/v2/users', { user_id: 'alice' });
    await authz('/authorization/v2/users', { user_id: 'bob' });
    await authz('/authorization/v2/userteam', { user_id: 'alice', team_code: 'TEAM-A' }).expect(200);
    await authz('/authorization/v2/userteam', { user_id: 'bob', team_code: 'TEAM-B' }).expect(200);
  });
  afterAll(() => platform.close());

  it('answers 204 while no group is authorized for the caller', async () => {
    await api(admin).list().expect(204);
    await api(alice).list().expect(204);
  });

  it('creates, reads, replaces, patches and deletes a group with versions', async () => {
    const created = await api(admin)
      .create({
        _id: 'aws-prod',
        type: 'visibility',
        version: '1',
        expr: 'providerName == "aws" && billingAccountName == "prod"',
        context: { teams: ['TEAM-A'] },
      })
      .expect(200);
    expect(created.body).toEqual({
      _id: 'aws-prod',
      type: 'visibility',
      version: 1,
      expr: 'providerName == "aws" && billingAccountName == "prod"',
      context: { teams: ['TEAM-A'] },
    });

    const generated = await api(admin).create({ type: 'budgetary', expr: "category == 'Compute'" }).expect(200);
    expect(generated.body._id).toMatch(/^[0-9a-f]{24}$/);

    const replaced = await api(admin)
      .put({ _id: 'aws-prod', version: 1, type: 'visibility', expr: 'providerName == "aws"', context: { teams: ['TEAM-A'] } })
      .expect(200);
    expect(replaced.body).toMatchObject({ version: 2, expr: 'providerName == "aws"' });

    const stale = await api(admin).patch({ _id: 'aws-prod', version: 1, expr: 'providerName == "gcp"' });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe('VERSION_CONFLICT');

    const patched = await api(admin)
      .patch({ _id: 'aws-prod', version: 2, context: { teams: ['TEAM-A'], owners: ['alice'] } })
      .expect(200);
    expect(patched.body).toMatchObject({ version: 3, expr: 'providerName == "aws"', context: { teams: ['TEAM-A'], owners: ['alice'] } });

    const list = await api(admin).list().expect(200);
    expect(list.body.map((g: { _id: string }) => g._id).sort()).toEqual(['aws-prod', generated.body._id].sort());

    await api(admin).remove(generated.body._id).expect(200);
    expect((await api(admin).remove(generated.body._id)).body.code).toBe('RESOURCE_GROUP_NOT_FOUND');
    expect((await api(admin).remove('nope')).status).toBe(404);
    expect((await api(admin).put({ _id: 'nope', type: 'visibility', expr: 'region == "x"' })).status).toBe(404);
  });

  it('refuses invalid groups with 400 problems, naming the expression position', async () => {
    const bad = await api(admin).create({ type: 'visibility', expr: 'providerName == "aws" &&' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'INVALID_EXPRESSION', position: expect.any(Number) });
    expect((await api(admin).create({ type: 'visibility', expr: 'providerName == "x" || yes' })).body.code).toBe('INVALID_EXPRESSION');
    expect((await api(admin).create({ type: 'visibility', expr: 'providerName == ${p}' })).body.code).toBe('INVALID_EXPRESSION');
    expect((await api(admin).create({ type: 'other', expr: 'region == "x"' })).body.code).toBe('VALIDATION_FAILED');
    expect((await api(admin).create({ type: 'visibility', expr: 'region == "x"', context: { teams: 'TEAM-A' } })).body.code).toBe(
      'VALIDATION_FAILED',
    );
    expect((await api(admin).create({ type: 'visibility', expr: 'region == "x"', owner: 'me' })).body.code).toBe('VALIDATION_FAILED');
    expect((await api(admin).create({ _id: 'aws-prod', type: 'visibility', expr: 'region == "x"' })).status).toBe(409);
    expect((await api(admin).put({ _id: 'aws-prod', expr: 'region == "x"' })).status).toBe(400);
  });

  it('shows a member only the groups of its teams, and writes only to System Admins', async () => {
    await api(admin)
      .create({ _id: 'team-b-only', type: 'visibility', expr: 'providerName == "azure"', context: { teams: ['TEAM-B'] } })
      .expect(200);
    await eventually(async () => {
      const aliceGroups = await api(alice).list().expect(200);
      expect(aliceGroups.body.map((g: { _id: string }) => g._id)).toEqual(['aws-prod']);
    });
    const bobGroups = await api(bob).list().expect(200);
    expect(bobGroups.body.map((g: { _id: string }) => g._id)).toEqual(['team-b-only']);
    expect((await api(alice).create({ type: 'visibility', expr: 'region == "x"' })).status).toBe(403);
    expect((await api(alice).remove('aws-prod')).status).toBe(403);

    const visibility = platform.costasset.app.get(VisibilityService);
    const principal = {
      userId: 'alice',
      tenantId: 'default',
      idpId: 'i',
      groups: [],
      authType: 'internal' as const,
      roles: [],
      isSystemAdmin: false,
      teams: [{ teamCode: 'TEAM-A', orgCode: 'o', roles: [], via: 'internal' as const }],
    };
    expect(await visibility.filterFor(principal)).toEqual({ providerName: { $eq: 'aws' } });
    expect(await visibility.filterFor({ ...principal, teams: [] })).toEqual({ _id: { $in: [] } });
    expect(await visibility.filterFor({ ...principal, isSystemAdmin: true })).toBeNull();
  });

  it("keeps tenants apart: another tenant's System Admin neither sees nor changes these groups", async () => {
    const otherAdmin = await platform.token({ sub: 'admin', tid: 'other' });
    await api(otherAdmin).list().expect(204);
    expect((await api(otherAdmin).remove('aws-prod')).status).toBe(404);
    expect((await api(otherAdmin).put({ _id: 'aws-prod', type: 'visibility', expr: 'region == "x"' })).status).toBe(404);
    expect((await api(otherAdmin).patch({ _id: 'aws-prod', expr: 'region == "x"' })).status).toBe(404);
    await api(otherAdmin).create({ _id: 'aws-prod', type: 'visibility', expr: 'region == "x"' }).expect(200);
    const mine = await api(admin).list().expect(200);
    expect(mine.body.find((g: { _id: string }) => g._id === 'aws-prod').expr).toBe('providerName == "aws"');
  });
});
