import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MAX_NAME_LENGTH, MAX_TEXT_LENGTH, MAX_URL_LENGTH, OptionalText, RequiredText } from './text';

export class LocationsQuery {
  /** Only the mappings of this provider; all providers when absent */
  @ApiPropertyOptional({ maxLength: MAX_NAME_LENGTH })
  @OptionalText(MAX_NAME_LENGTH)
  providerName?: string;

  /** Accepted for existing clients and ignored: a location mapping has no asset type */
  @ApiPropertyOptional({ maxLength: MAX_TEXT_LENGTH })
  @OptionalText(MAX_TEXT_LENGTH)
  assetType?: string;
}

export class OptionalProviderNameQuery {
  /** When given, every posted item must carry this provider name */
  @ApiPropertyOptional({ maxLength: MAX_NAME_LENGTH })
  @OptionalText(MAX_NAME_LENGTH)
  providerName?: string;
}

export class PatchLocationsQuery {
  /** Provider name (case-sensitive) */
  @ApiProperty({ maxLength: MAX_NAME_LENGTH })
  @RequiredText(MAX_NAME_LENGTH)
  providerName: string;

  /** Only this region; every location mapping of the provider when absent */
  @ApiPropertyOptional({ maxLength: MAX_NAME_LENGTH })
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

/** One location mapping, as posted and as answered. */
export class LocationMappingDto extends LocationFieldsDto {
  @ApiProperty({ maxLength: MAX_NAME_LENGTH })
  @RequiredText(MAX_NAME_LENGTH)
  providerName: string;

  /** Region code of the provider (GPD `RegionId`); key of the mapping within the provider */
  @ApiProperty({ maxLength: MAX_NAME_LENGTH })
  @RequiredText(MAX_NAME_LENGTH)
  providerRegionCode: string;
}

export class LocationUpsertResponse {
  /** Mappings created */
  upserted: number;

  /** Mappings that existed and were replaced by the posted values */
  updated: number;

  /** The posted mappings as stored, sorted by provider and region code */
  items: LocationMappingDto[];
}

export class LocationPatchResponse {
  /** Mappings selected and changed */
  updated: number;

  /** The selected mappings as stored now, sorted by region code */
  items: LocationMappingDto[];
}
