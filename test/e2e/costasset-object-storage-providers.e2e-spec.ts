import request from 'supertest';
import { teamMembers } from '../support/members';
import { Platform, startPlatform } from '../support/platform';
import { expectProblem } from '../support/problems';

const PROVIDERS = '/api/costasset/v1/providers/object-storage';

describe('costasset object-storage providers', () => {
  let platform: Platform;
  let admin: string;
  /** A reader: a member of a team holding no role. */
  let bob: string;
  /** A user of the tenant in no team. */
  let loner: string;
  let otherAdmin: string;
  /** A reader of the other tenant. */
  let otherUser: string;
  const api = () => request(platform.costasset.url);

  beforeAll(async () => {
    platform = await startPlatform({ BOOTSTRAP_TENANTS: 'default,other' });
    admin = await platform.token({ sub: 'admin' });
    loner = await platform.token({ sub: 'loner' });
    otherAdmin = await platform.token({ sub: 'admin', tid: 'other' });
    ({ bob } = await teamMembers(platform, { code: 'READERS' }, ['bob']));
    ({ x: otherUser } = await teamMembers(platform, { code: 'READERS', tid: 'other' }, ['x']));
  });
  afterAll(() => platform.close());

  it('lists nothing at first and answers 404 for an unknown code', async () => {
    const empty = await api().get(PROVIDERS).set('corelite-token', bob).expect(200);
    expect(empty.body).toEqual([]);
    expectProblem(await api().get(`${PROVIDERS}/minio`).set('corelite-token', bob), 404, 'PROVIDER_NOT_FOUND');
    expectProblem(await api().get(PROVIDERS), 401, 'TOKEN_MISSING');
    expectProblem(await api().get(PROVIDERS).set('corelite-token', loner), 403, 'TEAM_REQUIRED');
    expectProblem(await api().get(`${PROVIDERS}/minio`).set('corelite-token', loner), 403, 'TEAM_REQUIRED');
  });

  it('creates providers (201), reads each by code and lists them sorted by code', async () => {
    const created = await api()
      .post(PROVIDERS)
      .set('corelite-token', admin)
      .send({ providerName: ' MinIO on-prem ', providerCode: 'minio' })
      .expect(201);
    expect(created.body).toEqual({ providerName: 'MinIO on-prem', providerCode: 'minio', createdAt: expect.any(String) });
    expect(Number.isNaN(Date.parse(created.body.createdAt))).toBe(false);
    await api().post(PROVIDERS).set('corelite-token', admin).send({ providerName: 'Amazon S3', providerCode: 'aws_s3' }).expect(201);
    await api().post(PROVIDERS).set('corelite-token', admin).send({ providerName: 'Ceph', providerCode: 'ceph-rgw-2' }).expect(201);

    const one = await api().get(`${PROVIDERS}/minio`).set('corelite-token', bob).expect(200);
    expect(one.body).toEqual(created.body);
    const list = await api().get(PROVIDERS).set('corelite-token', bob).expect(200);
    expect(list.body.map((p: { providerCode: string }) => p.providerCode)).toEqual(['aws_s3', 'ceph-rgw-2', 'minio']);
    expect(list.body[0]).toEqual({ providerName: 'Amazon S3', providerCode: 'aws_s3', createdAt: expect.any(String) });
  });

  it('answers 409 PROVIDER_CODE_TAKEN for a code already used in the tenant, keeping the first', async () => {
    expectProblem(
      await api().post(PROVIDERS).set('corelite-token', admin).send({ providerName: 'Another MinIO', providerCode: 'minio' }),
      409,
      'PROVIDER_CODE_TAKEN',
    );
    const results = await Promise.all(
      [1, 2, 3].map((n) =>
        api()
          .post(PROVIDERS)
          .set('corelite-token', admin)
          .send({ providerName: `Race ${n}`, providerCode: 'race' }),
      ),
    );
    expect(results.map((res) => res.status).sort()).toEqual([201, 409, 409]);
    const one = await api().get(`${PROVIDERS}/minio`).set('corelite-token', admin).expect(200);
    expect(one.body.providerName).toBe('MinIO on-prem');
    const list = await api().get(PROVIDERS).set('corelite-token', admin).expect(200);
    expect(list.body.map((p: { providerCode: string }) => p.providerCode)).toEqual(['aws_s3', 'ceph-rgw-2', 'minio', 'race']);
  });

  it('validates the code and the name, refusing unknown fields', async () => {
    const post = (body: object) => api().post(PROVIDERS).set('corelite-token', admin).send(body);
    for (const providerCode of ['MinIO', '-minio', '_x', 'a'.repeat(65), 'has space', 'dot.ted', '', 42]) {
      const res = await post({ providerName: 'x', providerCode });
      expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(res.body.errors).toEqual([expect.objectContaining({ field: 'providerCode' })]);
    }
    await post({ providerName: 'Longest', providerCode: 'a'.repeat(64) }).expect(201);
    const blankName = await post({ providerName: '   ', providerCode: 'blank' });
    expectProblem(blankName, 400, 'VALIDATION_FAILED');
    expect(blankName.body.errors).toEqual([expect.objectContaining({ field: 'providerName' })]);
    expectProblem(await post({ providerName: 'x'.repeat(129), providerCode: 'long' }), 400, 'VALIDATION_FAILED');
    expectProblem(await post({ providerCode: 'noname' }), 400, 'VALIDATION_FAILED');
    const unknown = await post({ providerName: 'x', providerCode: 'extra', endpoint: 'http://x' });
    expectProblem(unknown, 400, 'VALIDATION_FAILED');
    expect(unknown.body.errors).toEqual([expect.objectContaining({ field: 'endpoint' })]);
    expectProblem(await api().get(`${PROVIDERS}/blank`).set('corelite-token', admin), 404, 'PROVIDER_NOT_FOUND');
    expectProblem(await api().get(`${PROVIDERS}/MINIO`).set('corelite-token', admin), 404, 'PROVIDER_NOT_FOUND');
  });

  it('lets only a System Admin create', async () => {
    expectProblem(
      await api().post(PROVIDERS).set('corelite-token', bob).send({ providerName: 'Bob', providerCode: 'bob' }),
      403,
      'SYSTEM_ADMIN_REQUIRED',
    );
    expectProblem(
      await api().post(PROVIDERS).set('corelite-token', loner).send({ providerName: 'Loner', providerCode: 'loner' }),
      403,
      'SYSTEM_ADMIN_REQUIRED',
    );
    expectProblem(await api().get(`${PROVIDERS}/bob`).set('corelite-token', admin), 404, 'PROVIDER_NOT_FOUND');
    expectProblem(await api().get(`${PROVIDERS}/loner`).set('corelite-token', admin), 404, 'PROVIDER_NOT_FOUND');
  });

  it('keeps providers to their tenant: the same code is free in another tenant, foreign codes are 404', async () => {
    const empty = await api().get(PROVIDERS).set('corelite-token', otherUser).expect(200);
    expect(empty.body).toEqual([]);
    expectProblem(await api().get(`${PROVIDERS}/minio`).set('corelite-token', otherUser), 404, 'PROVIDER_NOT_FOUND');
    expectProblem(
      await api().post(PROVIDERS).set('corelite-token', otherUser).send({ providerName: 'X', providerCode: 'x' }),
      403,
      'SYSTEM_ADMIN_REQUIRED',
    );

    await api().post(PROVIDERS).set('corelite-token', otherAdmin).send({ providerName: 'Their MinIO', providerCode: 'minio' }).expect(201);
    const theirs = await api().get(PROVIDERS).set('corelite-token', otherUser).expect(200);
    expect(theirs.body).toEqual([{ providerName: 'Their MinIO', providerCode: 'minio', createdAt: expect.any(String) }]);
    const ours = await api().get(`${PROVIDERS}/minio`).set('corelite-token', bob).expect(200);
    expect(ours.body.providerName).toBe('MinIO on-prem');
  });

  it('documents the operations in the OpenAPI document', async () => {
    const res = await api().get('/docs/costasset/openapi.json').expect(200);
    const collection = res.body.paths[PROVIDERS];
    expect(Object.keys(collection.post.responses)).toEqual(expect.arrayContaining(['201', '400', '403', '409']));
    expect(collection.get.responses['200'].content['application/json'].schema).toMatchObject({ type: 'array' });
    expect(res.body.paths[`${PROVIDERS}/{providerCode}`].get.responses['404'].description).toContain('PROVIDER_NOT_FOUND');
  });
});
