import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MAX_NAME_LENGTH, MAX_TEXT_LENGTH, MAX_URL_LENGTH, OptionalText, RequiredText } from './text';

export class LocationsQuery {
  @ApiPropertyOptional({ maxLength: MAX_NAME_LENGTH, description: 'Only the mappings of this provider; all providers when absent' })
  @OptionalText(MAX_NAME_LENGTH)
  providerName?: string;

  @ApiPropertyOptional({
    maxLength: MAX_TEXT_LENGTH,
    description: 'Accepted for existing clients and ignored: a location mapping has no asset type',
  })
  @OptionalText(MAX_TEXT_LENGTH)
  assetType?: string;
}

export class OptionalProviderNameQuery {
  @ApiPropertyOptional({ maxLength: MAX_NAME_LENGTH, description: 'When given, every posted item must carry this provider name' })
  @OptionalText(MAX_NAME_LENGTH)
  providerName?: string;
}

export class PatchLocationsQuery {
  @ApiProperty({ maxLength: MAX_NAME_LENGTH, description: 'Provider name (case-sensitive)' })
  @RequiredText(MAX_NAME_LENGTH)
  providerName: string;

  @ApiPropertyOptional({ maxLength: MAX_NAME_LENGTH, description: 'Only this region; every location mapping of the provider when absent' })
  @OptionalText(MAX_NAME_LENGTH)
  providerRegionCode?: string;
}

/** The descriptive fields of a location mapping; used to patch (at least one) and inside the full mapping. */
export class LocationFieldsDto {
  @ApiPropertyOptional({ maxLength: MAX_TEXT_LENGTH })
  @OptionalText(MAX_TEXT_LENGTH)
  dataCenter?: string;

  @ApiPropertyOptional({ maxLength: MAX_URL_LENGTH })
  @OptionalText(MAX_URL_LENGTH)
  url?: string;

  @ApiPropertyOptional({ maxLength: MAX_TEXT_LENGTH })
  @OptionalText(MAX_TEXT_LENGTH)
  region?: string;

  @ApiPropertyOptional({ maxLength: MAX_TEXT_LENGTH })
  @OptionalText(MAX_TEXT_LENGTH)
  subregion?: string;

  @ApiPropertyOptional({ maxLength: MAX_TEXT_LENGTH })
  @OptionalText(MAX_TEXT_LENGTH)
  location?: string;

  @ApiPropertyOptional({ maxLength: MAX_TEXT_LENGTH })
  @OptionalText(MAX_TEXT_LENGTH)
  state?: string;

  @ApiPropertyOptional({ maxLength: MAX_TEXT_LENGTH })
  @OptionalText(MAX_TEXT_LENGTH)
  country?: string;
}

/** One location mapping (spec §2.10), as posted and as answered. */
export class LocationMappingDto extends LocationFieldsDto {
  @ApiProperty({ maxLength: MAX_NAME_LENGTH })
  @RequiredText(MAX_NAME_LENGTH)
  providerName: string;

  @ApiProperty({
    maxLength: MAX_NAME_LENGTH,
    description: 'Region code of the provider (GPD `RegionId`); key of the mapping within the provider',
  })
  @RequiredText(MAX_NAME_LENGTH)
  providerRegionCode: string;
}

export class LocationUpsertResponse {
  @ApiProperty({ description: 'Mappings created' })
  upserted: number;

  @ApiProperty({ description: 'Mappings that existed and were replaced by the posted values' })
  updated: number;

  @ApiProperty({ type: [LocationMappingDto], description: 'The posted mappings as stored, sorted by provider and region code' })
  items: LocationMappingDto[];
}

export class LocationPatchResponse {
  @ApiProperty({ description: 'Mappings selected and changed' })
  updated: number;

  @ApiProperty({ type: [LocationMappingDto], description: 'The selected mappings as stored now, sorted by region code' })
  items: LocationMappingDto[];
}
