import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsString, Matches } from 'class-validator';
import { IsSafeText } from '@lib/http';

export const PROVIDER_CODE_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;
export const MAX_PROVIDER_NAME_LENGTH = 128;

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

export class CreateObjectStorageProviderRequest {
  /** Display name of the provider */
  @ApiProperty({ maxLength: MAX_PROVIDER_NAME_LENGTH })
  @Transform(trim)
  @IsSafeText(MAX_PROVIDER_NAME_LENGTH)
  providerName: string;

  /** Identifier of the provider, unique within the tenant: lower-case letters, digits, `_` and `-`, starting with a letter or digit */
  @ApiProperty({ pattern: PROVIDER_CODE_PATTERN.source, maxLength: 64 })
  @Transform(trim)
  @IsString()
  @Matches(PROVIDER_CODE_PATTERN, { message: 'providerCode must match ^[a-z0-9][a-z0-9_-]{0,63}$' })
  providerCode: string;
}

export class ObjectStorageProviderResponse {
  providerName: string;

  providerCode: string;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;
}
