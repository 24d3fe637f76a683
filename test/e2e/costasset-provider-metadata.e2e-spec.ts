import SwaggerParser from '@apidevtools/swagger-parser';
import request from 'supertest';
import { MessageBus } from '@lib/messaging';
import { ProviderMetadataLookup } from '../../apps/costasset/src/provider-metadata/provider-metadata.lookup';
import { ServiceCategoryRepository } from '../../apps/costasset/src/provider-metadata/service-category.repository';
import { teamMembers } from '../support/members';
import { eventually, Platform, startPlatform } from '../support/platform';
import { expectProblem } from '../support/problems';

const CATEGORIES = '/api/costasset/v1/providermetadata/service_categories';
const LOCATIONS = '/api/costasset/v1/providermetadata/locations';

const category = (providerName: string, assetType: string, serviceCategory: string) => ({ providerName, assetType, serviceCategory });

describe('costasset provider metadata', () => {
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

  describe('service categories', () => {
    it('answers 401 PROVIDER_METADATA_NOT_FOUND when nothing is stored; a missing token is a 401 of its own', async () => {
      expectProblem(
        await api().get(CATEGORIES).query({ providerName: 'aws' }).set('corelite-token', admin),
        401,
        'PROVIDER_METADATA_NOT_FOUND',
      );
      expectProblem(await api().get(CATEGORIES).query({ providerName: 'aws' }), 401, 'TOKEN_MISSING');
      const missing = await api().get(CATEGORIES).set('corelite-token', admin);
      expectProblem(missing, 400, 'VALIDATION_FAILED');
      expect(missing.body.errors).toEqual([expect.objectContaining({ field: 'providerName' })]);
    });

    it('upserts by (provider, asset type) without duplicating, trims values, and reads back by provider or asset type', async () => {
      const first = await api()
        .post(CATEGORIES)
        .query({ providerName: 'aws' })
        .set('corelite-token', admin)
        .send([category('aws', 's3-bucket', ' Storage '), category('aws', 'ec2-instance', 'Compute')])
        .expect(200);
      expect(first.body).toEqual({
        upserted: 2,
        updated: 0,
        items: [category('aws', 'ec2-instance', 'Compute'), category('aws', 's3-bucket', 'Storage')],
      });

      const again = await api()
        .post(CATEGORIES)
        .query({ providerName: 'aws' })
        .set('corelite-token', admin)
        .send([category('aws', 's3-bucket', 'Storage'), category('aws', 'ec2-instance', 'Compute')])
        .expect(200);
      expect(again.body).toMatchObject({ upserted: 0, updated: 2 });

      const mixed = await api()
        .post(CATEGORIES)
        .query({ providerName: 'aws' })
        .set('corelite-token', admin)
        .send([category('aws', 'lambda-function', 'Compute'), category('aws', 's3-bucket', 'Object Storage')])
        .expect(200);
      expect(mixed.body).toEqual({
        upserted: 1,
        updated: 1,
        items: [category('aws', 'lambda-function', 'Compute'), category('aws', 's3-bucket', 'Object Storage')],
      });

      const all = await api().get(CATEGORIES).query({ providerName: 'aws' }).set('corelite-token', bob).expect(200);
      expect(all.body).toEqual([
        category('aws', 'ec2-instance', 'Compute'),
        category('aws', 'lambda-function', 'Compute'),
        category('aws', 's3-bucket', 'Object Storage'),
      ]);
      const blank = await api().get(CATEGORIES).query({ providerName: 'aws', assetType: '' }).set('corelite-token', bob).expect(200);
      expect(blank.body).toEqual(all.body);
      const one = await api()
        .get(CATEGORIES)
        .query({ providerName: 'aws', assetType: 'ec2-instance' })
        .set('corelite-token', bob)
        .expect(200);
      expect(one.body).toEqual([category('aws', 'ec2-instance', 'Compute')]);

      expectProblem(
        await api().get(CATEGORIES).query({ providerName: 'aws', assetType: 'gpu' }).set('corelite-token', bob),
        401,
        'PROVIDER_METADATA_NOT_FOUND',
      );
      expectProblem(
        await api().get(CATEGORIES).query({ providerName: 'AWS' }).set('corelite-token', bob),
        401,
        'PROVIDER_METADATA_NOT_FOUND',
      );
    });

    it('refuses unknown fields inside items, mismatched providers, repeated keys and bad list sizes, storing nothing', async () => {
      const post = (body: unknown, providerName = 'azure') =>
        api()
          .post(CATEGORIES)
          .query({ providerName })
          .set('corelite-token', admin)
          .send(body as object);

      const unknown = await post([category('azure', 'vm', 'Compute'), { ...category('azure', 'disk', 'Storage'), color: 'red' }]);
      expectProblem(unknown, 400, 'VALIDATION_FAILED');
      expect(unknown.body.errors).toEqual([expect.objectContaining({ field: '[1].color' })]);

      const incomplete = await post([{ providerName: 'azure', serviceCategory: 'Compute' }]);
      expectProblem(incomplete, 400, 'VALIDATION_FAILED');
      expect(incomplete.body.errors).toEqual([expect.objectContaining({ field: '[0].assetType' })]);

      const tooLong = await post([category('azure', 'vm', 'x'.repeat(257))]);
      expectProblem(tooLong, 400, 'VALIDATION_FAILED');
      expect(tooLong.body.errors).toEqual([expect.objectContaining({ field: '[0].serviceCategory' })]);

      const mismatch = await post([category('azure', 'vm', 'Compute'), category('gcp', 'vm', 'Compute')]);
      expectProblem(mismatch, 400, 'PROVIDER_NAME_MISMATCH');
      expect(mismatch.body.errors).toEqual([expect.objectContaining({ field: '[1].providerName' })]);

      expectProblem(await post([category('azure', 'vm', 'Compute'), category('azure', 'vm', 'Servers')]), 400, 'DUPLICATE_MAPPING_IN_BODY');
      expectProblem(await post([]), 400, 'VALIDATION_FAILED');
      expectProblem(await post(Array.from({ length: 1001 }, (_, i) => category('azure', `t${i}`, 'c'))), 400, 'VALIDATION_FAILED');
      expectProblem(await post(category('azure', 'vm', 'Compute')), 400, 'VALIDATION_FAILED');
      expectProblem(await post(['vm']), 400, 'VALIDATION_FAILED');
      expectProblem(
        await api()
          .post(CATEGORIES)
          .set('corelite-token', admin)
          .send([category('azure', 'vm', 'Compute')]),
        400,
        'VALIDATION_FAILED',
      );

      expectProblem(
        await api().get(CATEGORIES).query({ providerName: 'azure' }).set('corelite-token', admin),
        401,
        'PROVIDER_METADATA_NOT_FOUND',
      );

      const thousand = await post(Array.from({ length: 1000 }, (_, i) => category('azure', `t${String(i).padStart(4, '0')}`, 'c'))).expect(
        200,
      );
      expect(thousand.body).toMatchObject({ upserted: 1000, updated: 0 });
      expect(thousand.body.items).toHaveLength(1000);
    });

    it('patches one mapping by asset type, renames a category across the provider, and answers 401 when nothing matches', async () => {
      await api()
        .post(CATEGORIES)
        .query({ providerName: 'oci' })
        .set('corelite-token', admin)
        .send([category('oci', 'vm', 'Compute'), category('oci', 'function', 'Compute'), category('oci', 'bucket', 'Storage')])
        .expect(200);
      const patch = (body: object, providerName = 'oci') =>
        api().patch(CATEGORIES).query({ providerName }).set('corelite-token', admin).send(body);

      const renamed = await patch({ fromServiceCategory: 'Compute', serviceCategory: 'Compute & Containers' }).expect(200);
      expect(renamed.body).toEqual({
        updated: 2,
        items: [category('oci', 'function', 'Compute & Containers'), category('oci', 'vm', 'Compute & Containers')],
      });

      const single = await patch({ assetType: 'function', serviceCategory: ' Serverless ' }).expect(200);
      expect(single.body).toEqual({ updated: 1, items: [category('oci', 'function', 'Serverless')] });

      const guarded = await patch({
        assetType: 'vm',
        fromServiceCategory: 'Compute & Containers',
        serviceCategory: 'Virtual Machines',
      }).expect(200);
      expect(guarded.body).toEqual({ updated: 1, items: [category('oci', 'vm', 'Virtual Machines')] });

      expectProblem(
        await patch({ assetType: 'vm', fromServiceCategory: 'Compute', serviceCategory: 'Other' }),
        401,
        'PROVIDER_METADATA_NOT_FOUND',
      );
      expectProblem(await patch({ assetType: 'gpu', serviceCategory: 'Other' }), 401, 'PROVIDER_METADATA_NOT_FOUND');
      expectProblem(await patch({ fromServiceCategory: 'Nothing', serviceCategory: 'Other' }), 401, 'PROVIDER_METADATA_NOT_FOUND');
      expectProblem(await patch({ assetType: 'vm', serviceCategory: 'Other' }, 'unknown-provider'), 401, 'PROVIDER_METADATA_NOT_FOUND');
      expectProblem(await patch({ serviceCategory: 'Other' }), 400, 'SELECTOR_REQUIRED');
      expectProblem(await patch({ assetType: 'vm' }), 400, 'VALIDATION_FAILED');
      const unknown = await patch({ assetType: 'vm', serviceCategory: 'Other', providerName: 'oci' });
      expectProblem(unknown, 400, 'VALIDATION_FAILED');
      expect(unknown.body.errors).toEqual([expect.objectContaining({ field: 'providerName' })]);
      expectProblem(
        await api().patch(CATEGORIES).set('corelite-token', admin).send({ assetType: 'vm', serviceCategory: 'Other' }),
        400,
        'VALIDATION_FAILED',
      );

      const stored = await api().get(CATEGORIES).query({ providerName: 'oci' }).set('corelite-token', admin).expect(200);
      expect(stored.body).toEqual([
        category('oci', 'bucket', 'Storage'),
        category('oci', 'function', 'Serverless'),
        category('oci', 'vm', 'Virtual Machines'),
      ]);
    });
  });

  describe('locations', () => {
    const useast = {
      providerName: 'aws',
      providerRegionCode: 'us-east-1',
      dataCenter: 'IAD',
      url: 'https://aws.amazon.com/about-aws/global-infrastructure/',
      region: 'Americas',
      subregion: 'North America',
      location: 'N. Virginia',
      state: 'Virginia',
      country: 'US',
    };
    const euwest = { providerName: 'aws', providerRegionCode: 'eu-west-1', region: 'Europe', country: 'IE' };
    const uscentral = { providerName: 'gcp', providerRegionCode: 'us-central1', region: 'Americas', country: 'US' };

    it('answers 401 when none is stored, upserts without duplicating, lists by provider or all (assetType ignored)', async () => {
      expectProblem(await api().get(LOCATIONS).set('corelite-token', bob), 401, 'PROVIDER_METADATA_NOT_FOUND');

      const first = await api()
        .post(LOCATIONS)
        .query({ providerName: 'aws' })
        .set('corelite-token', admin)
        .send([useast, euwest])
        .expect(200);
      expect(first.body).toEqual({ upserted: 2, updated: 0, items: [euwest, useast] });
      const withoutQuery = await api()
        .post(LOCATIONS)
        .set('corelite-token', admin)
        .send([{ ...uscentral, location: ' Iowa ' }])
        .expect(200);
      expect(withoutQuery.body).toEqual({ upserted: 1, updated: 0, items: [{ ...uscentral, location: 'Iowa' }] });
      const again = await api()
        .post(LOCATIONS)
        .query({ providerName: 'aws' })
        .set('corelite-token', admin)
        .send([useast, euwest])
        .expect(200);
      expect(again.body).toMatchObject({ upserted: 0, updated: 2 });

      const all = await api().get(LOCATIONS).set('corelite-token', bob).expect(200);
      expect(all.body).toEqual([euwest, useast, { ...uscentral, location: 'Iowa' }]);
      const aws = await api().get(LOCATIONS).query({ providerName: 'aws' }).set('corelite-token', bob).expect(200);
      expect(aws.body).toEqual([euwest, useast]);
      const ignored = await api()
        .get(LOCATIONS)
        .query({ providerName: 'aws', assetType: 'ec2-instance' })
        .set('corelite-token', bob)
        .expect(200);
      expect(ignored.body).toEqual(aws.body);
      expectProblem(
        await api().get(LOCATIONS).query({ providerName: 'azure' }).set('corelite-token', bob),
        401,
        'PROVIDER_METADATA_NOT_FOUND',
      );
      expectProblem(await api().get(LOCATIONS), 401, 'TOKEN_MISSING');
    });

    it('replaces a mapping on a second post: fields left out are removed', async () => {
      const { state: _state, dataCenter: _dataCenter, ...withoutStateAndDataCenter } = useast;
      const res = await api().post(LOCATIONS).set('corelite-token', admin).send([withoutStateAndDataCenter]).expect(200);
      expect(res.body).toEqual({ upserted: 0, updated: 1, items: [withoutStateAndDataCenter] });
      const read = await api().get(LOCATIONS).query({ providerName: 'aws' }).set('corelite-token', admin).expect(200);
      expect(read.body).toEqual([euwest, withoutStateAndDataCenter]);
      await api().post(LOCATIONS).set('corelite-token', admin).send([useast]).expect(200);
    });

    it('refuses unknown fields inside items, missing keys, mismatched providers and repeated keys, storing nothing', async () => {
      const post = (body: unknown, query: object = {}) =>
        api()
          .post(LOCATIONS)
          .query(query)
          .set('corelite-token', admin)
          .send(body as object);
      const azure = { providerName: 'azure', providerRegionCode: 'westeurope' };

      const unknown = await post([azure, { ...azure, providerRegionCode: 'eastus', continent: 'NA' }]);
      expectProblem(unknown, 400, 'VALIDATION_FAILED');
      expect(unknown.body.errors).toEqual([expect.objectContaining({ field: '[1].continent' })]);

      const missing = await post([{ providerName: 'azure', region: 'Europe' }]);
      expectProblem(missing, 400, 'VALIDATION_FAILED');
      expect(missing.body.errors).toEqual([expect.objectContaining({ field: '[0].providerRegionCode' })]);

      const wrongType = await post([{ ...azure, country: 7 }]);
      expectProblem(wrongType, 400, 'VALIDATION_FAILED');
      expect(wrongType.body.errors).toEqual([expect.objectContaining({ field: '[0].country' })]);

      const mismatch = await post([azure, { ...azure, providerName: 'gcp' }], { providerName: 'azure' });
      expectProblem(mismatch, 400, 'PROVIDER_NAME_MISMATCH');
      expect(mismatch.body.errors).toEqual([expect.objectContaining({ field: '[1].providerName' })]);

      expectProblem(await post([azure, { ...azure, region: 'Europe' }]), 400, 'DUPLICATE_MAPPING_IN_BODY');
      expectProblem(await post([]), 400, 'VALIDATION_FAILED');
      expectProblem(await post(azure), 400, 'VALIDATION_FAILED');

      expectProblem(
        await api().get(LOCATIONS).query({ providerName: 'azure' }).set('corelite-token', admin),
        401,
        'PROVIDER_METADATA_NOT_FOUND',
      );
    });

    it('patches one region or every region of a provider, keeps the other fields, answers 401 when nothing matches', async () => {
      const patch = (query: object, body: object) => api().patch(LOCATIONS).query(query).set('corelite-token', admin).send(body);

      const one = await patch({ providerName: 'aws', providerRegionCode: 'us-east-1' }, { dataCenter: ' IAD-2 ' }).expect(200);
      expect(one.body).toEqual({ updated: 1, items: [{ ...useast, dataCenter: 'IAD-2' }] });

      const every = await patch({ providerName: 'aws' }, { subregion: 'Anywhere', state: 'n/a' }).expect(200);
      expect(every.body).toEqual({
        updated: 2,
        items: [
          { ...euwest, subregion: 'Anywhere', state: 'n/a' },
          { ...useast, dataCenter: 'IAD-2', subregion: 'Anywhere', state: 'n/a' },
        ],
      });
      const read = await api().get(LOCATIONS).query({ providerName: 'aws' }).set('corelite-token', bob).expect(200);
      expect(read.body).toEqual(every.body.items);
      const gcp = await api().get(LOCATIONS).query({ providerName: 'gcp' }).set('corelite-token', bob).expect(200);
      expect(gcp.body).toEqual([{ ...uscentral, location: 'Iowa' }]);

      expectProblem(
        await patch({ providerName: 'aws', providerRegionCode: 'mars-1' }, { region: 'Mars' }),
        401,
        'PROVIDER_METADATA_NOT_FOUND',
      );
      expectProblem(await patch({ providerName: 'azure' }, { region: 'Europe' }), 401, 'PROVIDER_METADATA_NOT_FOUND');
      expectProblem(await patch({ providerName: 'aws' }, {}), 400, 'NOTHING_TO_UPDATE');
      const unknown = await patch({ providerName: 'aws' }, { region: 'X', providerRegionCode: 'us-east-1' });
      expectProblem(unknown, 400, 'VALIDATION_FAILED');
      expect(unknown.body.errors).toEqual([expect.objectContaining({ field: 'providerRegionCode' })]);
      expectProblem(await patch({}, { region: 'Europe' }), 400, 'VALIDATION_FAILED');
    });
  });

  it('lets only a System Admin write; any member of a team of the tenant reads, a user in no team does not', async () => {
    const before = await api().get(CATEGORIES).query({ providerName: 'aws' }).set('corelite-token', bob).expect(200);
    expectProblem(await api().get(CATEGORIES).query({ providerName: 'aws' }).set('corelite-token', loner), 403, 'TEAM_REQUIRED');
    expectProblem(await api().get(LOCATIONS).set('corelite-token', loner), 403, 'TEAM_REQUIRED');
    const attempts = [
      api()
        .post(CATEGORIES)
        .query({ providerName: 'aws' })
        .send([category('aws', 'ec2-instance', 'Mine')]),
      api().patch(CATEGORIES).query({ providerName: 'aws' }).send({ assetType: 'ec2-instance', serviceCategory: 'Mine' }),
      api()
        .post(LOCATIONS)
        .send([{ providerName: 'aws', providerRegionCode: 'us-east-1' }]),
      api().patch(LOCATIONS).query({ providerName: 'aws' }).send({ country: 'XX' }),
    ];
    for (const attempt of attempts) expectProblem(await attempt.set('corelite-token', bob), 403, 'SYSTEM_ADMIN_REQUIRED');
    const after = await api().get(CATEGORIES).query({ providerName: 'aws' }).set('corelite-token', bob).expect(200);
    expect(after.body).toEqual(before.body);
    const locations = await api().get(LOCATIONS).query({ providerName: 'aws' }).set('corelite-token', bob).expect(200);
    expect(locations.body.map((l: { country?: string }) => l.country)).not.toContain('XX');
  });

  it('keeps every route to the caller tenant: another tenant sees nothing, cannot patch, and writes its own', async () => {
    for (const token of [otherAdmin, otherUser]) {
      expectProblem(
        await api().get(CATEGORIES).query({ providerName: 'aws' }).set('corelite-token', token),
        401,
        'PROVIDER_METADATA_NOT_FOUND',
      );
      expectProblem(
        await api().get(CATEGORIES).query({ providerName: 'aws', assetType: 'ec2-instance' }).set('corelite-token', token),
        401,
        'PROVIDER_METADATA_NOT_FOUND',
      );
      expectProblem(await api().get(LOCATIONS).set('corelite-token', token), 401, 'PROVIDER_METADATA_NOT_FOUND');
      expectProblem(
        await api().get(LOCATIONS).query({ providerName: 'aws' }).set('corelite-token', token),
        401,
        'PROVIDER_METADATA_NOT_FOUND',
      );
    }
    expectProblem(
      await api()
        .patch(CATEGORIES)
        .query({ providerName: 'aws' })
        .set('corelite-token', otherAdmin)
        .send({ assetType: 'ec2-instance', serviceCategory: 'Theirs' }),
      401,
      'PROVIDER_METADATA_NOT_FOUND',
    );
    expectProblem(
      await api()
        .patch(CATEGORIES)
        .query({ providerName: 'aws' })
        .set('corelite-token', otherAdmin)
        .send({ fromServiceCategory: 'Compute', serviceCategory: 'Theirs' }),
      401,
      'PROVIDER_METADATA_NOT_FOUND',
    );
    expectProblem(
      await api().patch(LOCATIONS).query({ providerName: 'aws' }).set('corelite-token', otherAdmin).send({ country: 'XX' }),
      401,
      'PROVIDER_METADATA_NOT_FOUND',
    );
    expectProblem(
      await api()
        .patch(LOCATIONS)
        .query({ providerName: 'aws', providerRegionCode: 'us-east-1' })
        .set('corelite-token', otherAdmin)
        .send({ country: 'XX' }),
      401,
      'PROVIDER_METADATA_NOT_FOUND',
    );
    expectProblem(
      await api()
        .post(CATEGORIES)
        .query({ providerName: 'aws' })
        .set('corelite-token', otherUser)
        .send([category('aws', 'x', 'y')]),
      403,
      'SYSTEM_ADMIN_REQUIRED',
    );

    const own = await api()
      .post(CATEGORIES)
      .query({ providerName: 'aws' })
      .set('corelite-token', otherAdmin)
      .send([category('aws', 'ec2-instance', 'Theirs')])
      .expect(200);
    expect(own.body).toMatchObject({ upserted: 1, updated: 0 });
    const ownLocation = await api()
      .post(LOCATIONS)
      .set('corelite-token', otherAdmin)
      .send([{ providerName: 'aws', providerRegionCode: 'us-east-1', country: 'XX' }])
      .expect(200);
    expect(ownLocation.body).toMatchObject({ upserted: 1, updated: 0 });
    const theirs = await api().get(CATEGORIES).query({ providerName: 'aws' }).set('corelite-token', otherUser).expect(200);
    expect(theirs.body).toEqual([category('aws', 'ec2-instance', 'Theirs')]);

    const ours = await api()
      .get(CATEGORIES)
      .query({ providerName: 'aws', assetType: 'ec2-instance' })
      .set('corelite-token', bob)
      .expect(200);
    expect(ours.body).toEqual([category('aws', 'ec2-instance', 'Compute')]);
    const ourLocations = await api().get(LOCATIONS).query({ providerName: 'aws' }).set('corelite-token', bob).expect(200);
    expect(ourLocations.body).toHaveLength(2);
    expect(ourLocations.body.map((l: { country?: string }) => l.country)).not.toContain('XX');
  });

  describe('lookup used by enrichment', () => {
    it('returns both maps of a tenant and provider, cached, and reflects every write at once', async () => {
      const lookup = platform.costasset.app.get(ProviderMetadataLookup);
      const empty = await lookup.snapshot('default', 'snap');
      expect(empty.categoriesByAssetType.size).toBe(0);
      expect(empty.locationsByRegion.size).toBe(0);
      expect(await lookup.snapshot('default', 'snap')).toBe(empty);

      await api()
        .post(CATEGORIES)
        .query({ providerName: 'snap' })
        .set('corelite-token', admin)
        .send([category('snap', 'vm', 'Compute'), category('snap', 'disk', 'Storage')])
        .expect(200);
      let snapshot = await lookup.snapshot('default', 'snap');
      expect(Object.fromEntries(snapshot.categoriesByAssetType)).toEqual({ vm: 'Compute', disk: 'Storage' });

      await api()
        .patch(CATEGORIES)
        .query({ providerName: 'snap' })
        .set('corelite-token', admin)
        .send({ assetType: 'vm', serviceCategory: 'Servers' })
        .expect(200);
      snapshot = await lookup.snapshot('default', 'snap');
      expect(snapshot.categoriesByAssetType.get('vm')).toBe('Servers');

      await api()
        .post(LOCATIONS)
        .set('corelite-token', admin)
        .send([{ providerName: 'snap', providerRegionCode: 'r1', region: 'Europe', country: 'DE' }])
        .expect(200);
      snapshot = await lookup.snapshot('default', 'snap');
      expect(snapshot.locationsByRegion.get('r1')).toEqual({
        providerName: 'snap',
        providerRegionCode: 'r1',
        region: 'Europe',
        country: 'DE',
      });

      await api()
        .patch(LOCATIONS)
        .query({ providerName: 'snap', providerRegionCode: 'r1' })
        .set('corelite-token', admin)
        .send({ location: 'Frankfurt' })
        .expect(200);
      snapshot = await lookup.snapshot('default', 'snap');
      expect(snapshot.locationsByRegion.get('r1')).toEqual({
        providerName: 'snap',
        providerRegionCode: 'r1',
        region: 'Europe',
        country: 'DE',
        location: 'Frankfurt',
      });
      expect(snapshot.categoriesByAssetType.size).toBe(2);

      const foreign = await lookup.snapshot('other', 'snap');
      expect(foreign.categoriesByAssetType.size).toBe(0);
      expect(foreign.locationsByRegion.size).toBe(0);
      expect((await lookup.snapshot('other', 'aws')).categoriesByAssetType.get('ec2-instance')).toBe('Theirs');
      expect((await lookup.snapshot('default', 'aws')).categoriesByAssetType.get('ec2-instance')).toBe('Compute');
    });

    it('drops cached snapshots when another instance announces a write over NATS', async () => {
      // A tenant no HTTP call of this file writes to: no event of this instance can drop the entry early.
      const lookup = platform.costasset.app.get(ProviderMetadataLookup);
      const cached = await lookup.snapshot('third', 'remote');
      expect(cached.categoriesByAssetType.size).toBe(0);

      // What another instance does: write the record, then publish the change.
      await platform.costasset.app
        .get(ServiceCategoryRepository)
        .upsertMany('third', 'remote', [{ assetType: 'vm', serviceCategory: 'Compute' }]);
      expect(await lookup.snapshot('third', 'remote')).toBe(cached);
      await platform.costasset.app
        .get(MessageBus)
        .publish('costasset.providermetadata.changed', { tenantId: 'third', providerNames: ['remote'] });
      await eventually(async () => {
        expect((await lookup.snapshot('third', 'remote')).categoriesByAssetType.get('vm')).toBe('Compute');
      });
    });
  });

  it('documents the 401 "record not found" of the interface in a valid OpenAPI document', async () => {
    const res = await api().get('/docs/costasset/openapi.json').expect(200);
    await SwaggerParser.validate(structuredClone(res.body));
    const categories = res.body.paths[CATEGORIES];
    const locations = res.body.paths[LOCATIONS];
    for (const operation of [categories.get, categories.patch, locations.get, locations.patch]) {
      expect(operation.responses['401'].description).toContain('PROVIDER_METADATA_NOT_FOUND');
      expect(operation.responses['200']).toBeDefined();
    }
    for (const operation of [categories.post, locations.post]) {
      expect(operation.requestBody.content['application/json'].schema).toMatchObject({ type: 'array' });
      expect(operation.responses['403']).toBeDefined();
    }
  });
});
