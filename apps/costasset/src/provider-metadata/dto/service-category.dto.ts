import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MAX_NAME_LENGTH, MAX_TEXT_LENGTH, OptionalText, RequiredText } from './text';

export class ProviderNameQuery {
  /** Provider name, exactly as in the GPD files (case-sensitive) */
  @ApiProperty({ maxLength: MAX_NAME_LENGTH })
  @RequiredText(MAX_NAME_LENGTH)
  providerName: string;
}

export class ServiceCategoryQuery extends ProviderNameQuery {
  /** Asset type (GPD `ResourceType`); empty or absent lists every mapping of the provider */
  @ApiPropertyOptional({ maxLength: MAX_TEXT_LENGTH })
  @OptionalText(MAX_TEXT_LENGTH)
  assetType?: string;
}

/** One service-category mapping, as posted and as answered. */
export class ServiceCategoryMappingDto {
  /** Must equal the `providerName` query parameter */
  @ApiProperty({ maxLength: MAX_NAME_LENGTH })
  @RequiredText(MAX_NAME_LENGTH)
  providerName: string;

  /** Service category the asset type is reported under */
  @ApiProperty({ maxLength: MAX_TEXT_LENGTH })
  @RequiredText(MAX_TEXT_LENGTH)
  serviceCategory: string;

  /** Asset type (GPD `ResourceType`); key of the mapping within the provider */
  @ApiProperty({ maxLength: MAX_TEXT_LENGTH })
  @RequiredText(MAX_TEXT_LENGTH)
  assetType: string;
}

export class PatchServiceCategoryRequest {
  /** The new service category */
  @ApiProperty({ maxLength: MAX_TEXT_LENGTH })
  @RequiredText(MAX_TEXT_LENGTH)
  serviceCategory: string;

  /** Selects the mapping of this asset type */
  @ApiPropertyOptional({ maxLength: MAX_TEXT_LENGTH })
  @OptionalText(MAX_TEXT_LENGTH)
  assetType?: string;

  /** Selects the mappings currently holding this service category (renames the category) */
  @ApiPropertyOptional({ maxLength: MAX_TEXT_LENGTH })
  @OptionalText(MAX_TEXT_LENGTH)
  fromServiceCategory?: string;
}

export class ServiceCategoryUpsertResponse {
  /** Mappings created */
  upserted: number;

  /** Mappings that existed and were overwritten with the posted values */
  updated: number;

  /** The posted mappings as stored, sorted by asset type */
  items: ServiceCategoryMappingDto[];
}

export class ServiceCategoryPatchResponse {
  /** Mappings selected and set to the new service category */
  updated: number;

  /** The selected mappings as stored now, sorted by asset type */
  items: ServiceCategoryMappingDto[];
}
