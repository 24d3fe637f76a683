import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MAX_NAME_LENGTH, MAX_TEXT_LENGTH, OptionalText, RequiredText } from './text';

export class ProviderNameQuery {
  @ApiProperty({ maxLength: MAX_NAME_LENGTH, description: 'Provider name, exactly as in the GPD files (case-sensitive)' })
  @RequiredText(MAX_NAME_LENGTH)
  providerName: string;
}

export class ServiceCategoryQuery extends ProviderNameQuery {
  @ApiPropertyOptional({
    maxLength: MAX_TEXT_LENGTH,
    description: 'Asset type (GPD `ResourceType`); empty or absent lists every mapping of the provider',
  })
  @OptionalText(MAX_TEXT_LENGTH)
  assetType?: string;
}

/** One service-category mapping (spec §2.9), as posted and as answered. */
export class ServiceCategoryMappingDto {
  @ApiProperty({ maxLength: MAX_NAME_LENGTH, description: 'Must equal the `providerName` query parameter' })
  @RequiredText(MAX_NAME_LENGTH)
  providerName: string;

  @ApiProperty({ maxLength: MAX_TEXT_LENGTH, description: 'Service category the asset type is reported under' })
  @RequiredText(MAX_TEXT_LENGTH)
  serviceCategory: string;

  @ApiProperty({ maxLength: MAX_TEXT_LENGTH, description: 'Asset type (GPD `ResourceType`); key of the mapping within the provider' })
  @RequiredText(MAX_TEXT_LENGTH)
  assetType: string;
}

export class PatchServiceCategoryRequest {
  @ApiProperty({ maxLength: MAX_TEXT_LENGTH, description: 'The new service category' })
  @RequiredText(MAX_TEXT_LENGTH)
  serviceCategory: string;

  @ApiPropertyOptional({ maxLength: MAX_TEXT_LENGTH, description: 'Selects the mapping of this asset type' })
  @OptionalText(MAX_TEXT_LENGTH)
  assetType?: string;

  @ApiPropertyOptional({
    maxLength: MAX_TEXT_LENGTH,
    description: 'Selects the mappings currently holding this service category (renames the category)',
  })
  @OptionalText(MAX_TEXT_LENGTH)
  fromServiceCategory?: string;
}

export class ServiceCategoryUpsertResponse {
  @ApiProperty({ description: 'Mappings created' })
  upserted: number;

  @ApiProperty({ description: 'Mappings that existed and were overwritten with the posted values' })
  updated: number;

  @ApiProperty({ type: [ServiceCategoryMappingDto], description: 'The posted mappings as stored, sorted by asset type' })
  items: ServiceCategoryMappingDto[];
}

export class ServiceCategoryPatchResponse {
  @ApiProperty({ description: 'Mappings selected and set to the new service category' })
  updated: number;

  @ApiProperty({ type: [ServiceCategoryMappingDto], description: 'The selected mappings as stored now, sorted by asset type' })
  items: ServiceCategoryMappingDto[];
}
