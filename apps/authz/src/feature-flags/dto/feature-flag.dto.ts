import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches } from 'class-validator';
import { CONFIG_KEY_PATTERN, CONFIG_KEY_RULE } from '../../configuration/config-keys';
import { FLAG_VALUES } from '../flag-values';
import type { FlagBody } from '../flag-body';

const keyRule = (field: string) => ({ message: `${field} must be ${CONFIG_KEY_RULE}` });
const valueRule = (field: string) => ({ message: `${field} must be the string "true" or "false"` });
const SHAPES = 'Send exactly one shape: `flag_key` + `flag_value`, or `configurationkey` + `configurationvalue`.';

/** Both body shapes of spec §2.13; the service picks the one sent and refuses a mix. */
export class FeatureFlagRequest implements FlagBody {
  @ApiPropertyOptional({
    description: `Flag key (first shape). ${SHAPES} On PUT the key may be omitted; when sent it must equal the path key.`,
    pattern: CONFIG_KEY_PATTERN.source,
    example: 'COMMON_DISCOVERY',
  })
  @IsOptional()
  @IsString()
  @Matches(CONFIG_KEY_PATTERN, keyRule('flag_key'))
  flag_key?: string;

  @ApiPropertyOptional({ description: 'Flag value (first shape): the string `true` or `false`', enum: FLAG_VALUES })
  @IsOptional()
  @IsIn(FLAG_VALUES, valueRule('flag_value'))
  flag_value?: string;

  @ApiPropertyOptional({ description: `Flag key (second shape). ${SHAPES}`, pattern: CONFIG_KEY_PATTERN.source, example: 'COSAMetering' })
  @IsOptional()
  @IsString()
  @Matches(CONFIG_KEY_PATTERN, keyRule('configurationkey'))
  configurationkey?: string;

  @ApiPropertyOptional({ description: 'Flag value (second shape): the string `true` or `false`', enum: FLAG_VALUES })
  @IsOptional()
  @IsIn(FLAG_VALUES, valueRule('configurationvalue'))
  configurationvalue?: string;
}

export class FeatureFlagResponse {
  @ApiProperty({ description: 'The flag key', example: 'COMMON_DISCOVERY' })
  configurationkey: string;

  @ApiProperty({ description: 'The flag value', enum: FLAG_VALUES })
  configurationvalue: string;
}

export class FlagKeyParams {
  @ApiProperty({ description: `The flag key (${CONFIG_KEY_RULE})`, pattern: CONFIG_KEY_PATTERN.source, example: 'COSAMetering' })
  @Matches(CONFIG_KEY_PATTERN, keyRule('configurationKey'))
  configurationKey: string;
}
