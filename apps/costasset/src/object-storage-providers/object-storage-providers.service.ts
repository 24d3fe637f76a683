import { Injectable } from '@nestjs/common';
import { isDuplicateKey } from '@lib/core';
import {
  CreateObjectStorageProviderRequest,
  ObjectStorageProviderResponse,
  PROVIDER_CODE_PATTERN,
} from './dto/object-storage-provider.dto';
import { ObjectStorageProviderRepository } from './object-storage-provider.repository';
import { ObjectStorageProviderProblems } from './object-storage-providers.problems';
import { ObjectStorageProvider } from './schemas/object-storage-provider.schema';

const toResponse = (record: ObjectStorageProvider): ObjectStorageProviderResponse => ({
  providerName: record.providerName,
  providerCode: record.providerCode,
  createdAt: (record.createdAt ?? new Date()).toISOString(),
});

@Injectable()
export class ObjectStorageProvidersService {
  constructor(private readonly repository: ObjectStorageProviderRepository) {}

  /** The unique index on (tenant, code) decides, so two concurrent creates cannot both win. */
  async create(tenantId: string, body: CreateObjectStorageProviderRequest): Promise<ObjectStorageProviderResponse> {
    try {
      return toResponse(await this.repository.create(tenantId, { providerName: body.providerName, providerCode: body.providerCode }));
    } catch (error) {
      if (isDuplicateKey(error)) throw ObjectStorageProviderProblems.codeTaken(body.providerCode);
      throw error;
    }
  }

  async list(tenantId: string): Promise<ObjectStorageProviderResponse[]> {
    return (await this.repository.find(tenantId, {}, { sort: { providerCode: 1 } })).map(toResponse);
  }

  async get(tenantId: string, providerCode: string): Promise<ObjectStorageProviderResponse> {
    const record = PROVIDER_CODE_PATTERN.test(providerCode) ? await this.repository.findOne(tenantId, { providerCode }) : null;
    if (!record) throw ObjectStorageProviderProblems.notFound();
    return toResponse(record);
  }
}
