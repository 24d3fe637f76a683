import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { AUTH_TYPES, type AuthType } from '@lib/auth';
import { IsSafeText } from '@lib/http';
import { Trim } from './validation';

export class CreateIdpMappingRequest {
  @ApiPropertyOptional({ description: "The IdP to map; taken from the caller's corelite-token when omitted, and must equal it when given", maxLength: 256 })
  @IsOptional()
  @Trim()
  @IsSafeText(256)
  idp_id?: string;

  @ApiProperty({ description: 'Id of an existing auth-type configuration of the tenant', maxLength: 64 })
  @Trim()
  @IsSafeText(64)
  auth_type_id: string;
}

export class UpdateIdpMappingRequest {
  @ApiProperty({ description: 'Id of an existing auth-type configuration of the tenant', maxLength: 64 })
  @Trim()
  @IsSafeText(64)
  auth_type_id: string;
}

export class IdpMappingResponse {
  @ApiProperty()
  idp_id: string;

  @ApiProperty()
  auth_type_id: string;

  @ApiProperty({ enum: AUTH_TYPES, description: 'auth type of the mapped configuration' })
  auth_type: AuthType;
}
