import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsString, Matches } from 'class-validator';
import { IsSafeText } from '@lib/http';

export const PROVIDER_CODE_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;
export const MAX_PROVIDER_NAME_LENGTH = 128;

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

export class CreateObjectStorageProviderRequest {
  @ApiProperty({ maxLength: MAX_PROVIDER_NAME_LENGTH, description: 'Display name of the provider' })
  @Transform(trim)
  @IsSafeText(MAX_PROVIDER_NAME_LENGTH)
  providerName: string;

  @ApiProperty({
    pattern: PROVIDER_CODE_PATTERN.source,
    maxLength: 64,
    description:
      'Identifier of the provider, unique within the tenant: lower-case letters, digits, `_` and `-`, starting with a letter or digit',
  })
  @Transform(trim)
  @IsString()
  @Matches(PROVIDER_CODE_PATTERN, { message: 'providerCode must match ^[a-z0-9][a-z0-9_-]{0,63}$' })
  providerCode: string;
}

export class ObjectStorageProviderResponse {
  @ApiProperty()
  providerName: string;

  @ApiProperty()
  providerCode: string;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt: string;
}
