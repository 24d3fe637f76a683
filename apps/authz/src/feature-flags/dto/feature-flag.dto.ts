import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches } from 'class-validator';
import { CONFIG_KEY_PATTERN, CONFIG_KEY_RULE } from '../../configuration/config-keys';
import { FLAG_VALUES } from '../flag-values';
import type { FlagBody } from '../flag-body';

const keyRule = (field: string) => ({ message: `${field} must be ${CONFIG_KEY_RULE}` });
const valueRule = (field: string) => ({ message: `${field} must be the string "true" or "false"` });
const SHAPES = 'Send exactly one shape: `flag_key` + `flag_value`, or `configurationkey` + `configurationvalue`.';

/** Both body shapes of the feature-flag request; the service picks the one sent and refuses a mix. */
export class FeatureFlagRequest implements FlagBody {
  /**
   *
   * @example "COMMON_DISCOVERY"
   */
  @ApiPropertyOptional({
    description: `Flag key (first shape). ${SHAPES} On PUT the key may be omitted; when sent it must equal the path key.`,
    pattern: CONFIG_KEY_PATTERN.source,
  })
  @IsOptional()
  @IsString()
  @Matches(CONFIG_KEY_PATTERN, keyRule('flag_key'))
  flag_key?: string;

  /** Flag value (first shape): the string `true` or `false` */
  @ApiPropertyOptional({ enum: FLAG_VALUES })
  @IsOptional()
  @IsIn(FLAG_VALUES, valueRule('flag_value'))
  flag_value?: string;

  /**
   *
   * @example "COSAMetering"
   */
  @ApiPropertyOptional({ description: `Flag key (second shape). ${SHAPES}`, pattern: CONFIG_KEY_PATTERN.source })
  @IsOptional()
  @IsString()
  @Matches(CONFIG_KEY_PATTERN, keyRule('configurationkey'))
  configurationkey?: string;

  /** Flag value (second shape): the string `true` or `false` */
  @ApiPropertyOptional({ enum: FLAG_VALUES })
  @IsOptional()
  @IsIn(FLAG_VALUES, valueRule('configurationvalue'))
  configurationvalue?: string;
}

export class FeatureFlagResponse {
  /**
   * The flag key
   * @example "COMMON_DISCOVERY"
   */
  configurationkey: string;

  /** The flag value */
  @ApiProperty({ enum: FLAG_VALUES })
  configurationvalue: string;
}

export class FlagKeyParams {
  /**
   *
   * @example "COSAMetering"
   */
  @ApiProperty({ description: `The flag key (${CONFIG_KEY_RULE})`, pattern: CONFIG_KEY_PATTERN.source })
  @Matches(CONFIG_KEY_PATTERN, keyRule('configurationKey'))
  configurationKey: string;
}
