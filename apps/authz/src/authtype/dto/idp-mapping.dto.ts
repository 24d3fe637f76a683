import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { AUTH_TYPES, type AuthType } from '@lib/auth';
import { IsSafeText } from '@lib/http';
import { Trim } from './validation';

export class CreateIdpMappingRequest {
  /** The IdP to map; taken from the caller's corelite-token when omitted, and must equal it when given */
  @ApiPropertyOptional({ maxLength: 256 })
  @IsOptional()
  @Trim()
  @IsSafeText(256)
  idp_id?: string;

  /** Id of an existing auth-type configuration of the tenant */
  @ApiProperty({ maxLength: 64 })
  @Trim()
  @IsSafeText(64)
  auth_type_id: string;
}

export class UpdateIdpMappingRequest {
  /** Id of an existing auth-type configuration of the tenant */
  @ApiProperty({ maxLength: 64 })
  @Trim()
  @IsSafeText(64)
  auth_type_id: string;
}

export class IdpMappingResponse {
  idp_id: string;

  auth_type_id: string;

  /** auth type of the mapped configuration */
  @ApiProperty({ enum: AUTH_TYPES })
  auth_type: AuthType;
}
