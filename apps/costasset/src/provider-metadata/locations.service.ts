import { Injectable } from '@nestjs/common';
import { Types } from 'mongoose';
import { LocationFieldsDto, LocationMappingDto, LocationPatchResponse, LocationUpsertResponse } from './dto/location.dto';
import { repeatedIndexes } from './duplicates';
import { LOCATION_FIELDS, LocationFields } from './location-fields';
import { LocationRepository } from './location.repository';
import { ProviderMetadataCache } from './provider-metadata.cache';
import { ProviderMetadataProblems } from './provider-metadata.problems';
import { LocationMappingRecord } from './schemas/location-mapping.schema';

const BY_PROVIDER_AND_REGION = { sort: { providerName: 1 as const, providerRegionCode: 1 as const } };

const keyOf = (item: { providerName: string; providerRegionCode: string }) => `${item.providerName}\u0000${item.providerRegionCode}`;

function toDto(record: LocationMappingRecord): LocationMappingDto {
  const dto: LocationMappingDto = { providerName: record.providerName, providerRegionCode: record.providerRegionCode };
  for (const field of LOCATION_FIELDS) if (record[field] !== undefined) dto[field] = record[field];
  return dto;
}

@Injectable()
export class LocationsService {
  constructor(
    private readonly repository: LocationRepository,
    private readonly cache: ProviderMetadataCache,
  ) {}

  /** The location mappings of one provider, or of every provider. */
  async list(tenantId: string, providerName?: string): Promise<LocationMappingDto[]> {
    const records = await this.repository.find(tenantId, providerName ? { providerName } : {}, BY_PROVIDER_AND_REGION);
    if (records.length === 0) throw ProviderMetadataProblems.notFound('location mapping');
    return records.map(toDto);
  }

  /** Upsert by (provider, region code); each posted item replaces the stored mapping. */
  async upsert(tenantId: string, providerName: string | undefined, items: LocationMappingDto[]): Promise<LocationUpsertResponse> {
    if (providerName) {
      const mismatched = items.flatMap((item, index) => (item.providerName === providerName ? [] : [index]));
      if (mismatched.length > 0) throw ProviderMetadataProblems.providerNameMismatch(mismatched);
    }
    const repeated = repeatedIndexes(items, keyOf);
    if (repeated.length > 0) throw ProviderMetadataProblems.duplicateItems(repeated, 'providerName and providerRegionCode');

    const counts = await this.repository.upsertMany(tenantId, items);
    const providers = [...new Set(items.map((item) => item.providerName))];
    await this.cache.changed(tenantId, providers);
    const posted = new Set(items.map(keyOf));
    const candidates = await this.repository.find(
      tenantId,
      { providerName: { $in: providers }, providerRegionCode: { $in: [...new Set(items.map((item) => item.providerRegionCode))] } },
      BY_PROVIDER_AND_REGION,
    );
    return {
      upserted: counts.upserted,
      updated: counts.matched,
      items: candidates.filter((record) => posted.has(keyOf(record))).map(toDto),
    };
  }

  /** Sets the given fields on one region of the provider, or on every region of it. */
  async patch(
    tenantId: string,
    providerName: string,
    providerRegionCode: string | undefined,
    body: LocationFieldsDto,
  ): Promise<LocationPatchResponse> {
    const changes: LocationFields = {};
    for (const field of LOCATION_FIELDS) if (body[field] !== undefined) changes[field] = body[field];
    if (Object.keys(changes).length === 0) throw ProviderMetadataProblems.nothingToUpdate();
    const selected = await this.repository.find(
      tenantId,
      { providerName, ...(providerRegionCode ? { providerRegionCode } : {}) },
      {},
      { _id: 1 },
    );
    if (selected.length === 0) throw ProviderMetadataProblems.notFound('location mapping');

    const ids: Types.ObjectId[] = selected.map((record) => record._id);
    await this.repository.updateMany(tenantId, { _id: { $in: ids } }, { $set: changes });
    await this.cache.changed(tenantId, [providerName]);
    const stored = await this.repository.find(tenantId, { _id: { $in: ids } }, BY_PROVIDER_AND_REGION);
    return { updated: ids.length, items: stored.map(toDto) };
  }
}
