import { ApiProperty } from '@nestjs/swagger';
import { IsIn, Matches } from 'class-validator';

export class FeatureFlagBody {
  /**
   *
   * @example "COSAMetering"
   */
  @Matches(/^[A-Za-z0-9_.-]{1,128}$/, { message: 'configurationkey must be 1-128 letters, digits, or _ . -' })
  configurationkey: string;

  @ApiProperty({ enum: ['true', 'false'] })
  @IsIn(['true', 'false'])
  configurationvalue: string;
}

export class FeatureFlagRecordResponse {
  configurationkey: string;

  @ApiProperty({ enum: ['true', 'false'] })
  configurationvalue: string;
}
