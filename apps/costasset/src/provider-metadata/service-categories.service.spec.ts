import { Types } from 'mongoose';
import { ProblemException } from '@lib/core';
import type { ProviderMetadataCache } from './provider-metadata.cache';
import { ServiceCategoriesService } from './service-categories.service';
import type { ServiceCategoryRepository } from './service-category.repository';

function setUp(found: object[] = []) {
  const id = new Types.ObjectId();
  const repository = {
    find: jest.fn(async (..._args: unknown[]) => found.map((record) => ({ _id: id, ...record }))),
    upsertMany: jest.fn(async () => ({ upserted: 1, matched: 0 })),
    updateMany: jest.fn(async () => 1),
  };
  const cache = { changed: jest.fn(async () => undefined) };
  const service = new ServiceCategoriesService(
    repository as unknown as ServiceCategoryRepository,
    cache as unknown as ProviderMetadataCache,
  );
  return { service, repository, cache, id };
}

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: ProblemException) => `${error.getStatus()} ${error.code}`,
  );

describe('ServiceCategoriesService', () => {
  const item = (providerName: string, assetType: string) => ({ providerName, assetType, serviceCategory: 'c' });

  it('refuses items of another provider and repeated asset types before writing', async () => {
    const { service, repository, cache } = setUp();
    expect(await codeOf(service.upsert('t', 'aws', [item('aws', 'vm'), item('gcp', 'vm')]))).toBe('400 PROVIDER_NAME_MISMATCH');
    expect(await codeOf(service.upsert('t', 'aws', [item('aws', 'vm'), item('aws', 'vm')]))).toBe('400 DUPLICATE_MAPPING_IN_BODY');
    expect(repository.upsertMany).not.toHaveBeenCalled();
    expect(cache.changed).not.toHaveBeenCalled();
  });

  it('drops cached snapshots after an upsert', async () => {
    const { service, cache } = setUp([item('aws', 'vm')]);
    await expect(service.upsert('t', 'aws', [item('aws', 'vm')])).resolves.toMatchObject({ upserted: 1, updated: 0 });
    expect(cache.changed).toHaveBeenCalledWith('t', ['aws']);
  });

  it('answers 401 PROVIDER_METADATA_NOT_FOUND when a read or a patch matches nothing', async () => {
    const { service, repository } = setUp([]);
    expect(await codeOf(service.list('t', 'aws'))).toBe('401 PROVIDER_METADATA_NOT_FOUND');
    expect(await codeOf(service.patch('t', 'aws', { serviceCategory: 'x', assetType: 'vm' }))).toBe('401 PROVIDER_METADATA_NOT_FOUND');
    expect(repository.updateMany).not.toHaveBeenCalled();
  });

  it('needs a selector to patch, and combines the ones given', async () => {
    const { service, repository } = setUp([item('aws', 'vm')]);
    expect(await codeOf(service.patch('t', 'aws', { serviceCategory: 'x' }))).toBe('400 SELECTOR_REQUIRED');
    await service.patch('t', 'aws', { serviceCategory: 'x', fromServiceCategory: 'old' });
    expect(repository.find.mock.calls[0].slice(0, 2)).toEqual(['t', { providerName: 'aws', serviceCategory: 'old' }]);
    await service.patch('t', 'aws', { serviceCategory: 'x', assetType: 'vm', fromServiceCategory: 'old' });
    expect(repository.find.mock.calls[2].slice(0, 2)).toEqual(['t', { providerName: 'aws', assetType: 'vm', serviceCategory: 'old' }]);
    expect(repository.updateMany).toHaveBeenLastCalledWith(
      't',
      { _id: { $in: [expect.any(Types.ObjectId)] } },
      { $set: { serviceCategory: 'x' } },
    );
  });
});
