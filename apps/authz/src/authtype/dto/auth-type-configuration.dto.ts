import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsIn, IsOptional, IsString, Length, Matches, ValidateIf } from 'class-validator';
import { AUTH_TYPES, type AuthType } from '@lib/auth';
import { IsSafeText } from '@lib/http';
import type { AuthTypeConfiguration } from '../schemas/auth-type-configuration.schema';
import { MAX_CODE_LENGTH, TEAM_CODE_PATTERN } from '../team-code';
import { OnlyForAuthType, Trim } from './validation';

export const MAX_NAME_LENGTH = 128;
export const MAX_EXTERNAL_REF_LENGTH = 256;

const CODE_RULE = 'letters, digits, "_", "." and "-", starting with a letter or digit';

export class CreateAuthTypeConfigurationRequest {
  /**
   * Unique per tenant, case-insensitive
   * @example "Cloud admins"
   */
  @ApiProperty({ minLength: 1, maxLength: MAX_NAME_LENGTH })
  @Trim()
  @IsSafeText(MAX_NAME_LENGTH)
  name: string;

  /** Only one `internal` configuration can exist per tenant */
  @ApiProperty({ enum: AUTH_TYPES })
  @IsIn(AUTH_TYPES)
  auth_type: AuthType;

  /**
   * Required for `hybrid`, refused for `internal`. The external group that stands for the System Admin team; must not be associated with
   * any team yet.
   * @example "cloud-admins"
   */
  @ApiPropertyOptional({ minLength: 1, maxLength: MAX_EXTERNAL_REF_LENGTH })
  @ValidateIf(
    (body: CreateAuthTypeConfigurationRequest) =>
      body.auth_type === 'hybrid' || body.initial_system_admin_team_external_ref_id !== undefined,
  )
  @Trim()
  @OnlyForAuthType('hybrid')
  @IsDefined({ message: 'initial_system_admin_team_external_ref_id is required when auth_type is hybrid' })
  @IsSafeText(MAX_EXTERNAL_REF_LENGTH)
  initial_system_admin_team_external_ref_id?: string;

  /**
   *
   * @example "CLOUD-ADMINS"
   */
  @ApiPropertyOptional({
    description:
      'Hybrid only: code of the new System Admin team; must not exist yet. Generated (`ADMIN-<name>-<random>`) when omitted. ' +
      `${CODE_RULE}.`,
    maxLength: MAX_CODE_LENGTH,
  })
  @ValidateIf((body: CreateAuthTypeConfigurationRequest) => body.initial_system_admin_team_code !== undefined)
  @Trim()
  @OnlyForAuthType('hybrid')
  @IsString()
  @Length(1, MAX_CODE_LENGTH)
  @Matches(TEAM_CODE_PATTERN, { message: `initial_system_admin_team_code may hold ${CODE_RULE}` })
  initial_system_admin_team_code?: string;

  /**
   * Hybrid only: org of the new team, created when missing. Default `admin_org` (with an underscore, as everywhere in the product:
   * the bootstrap org).
   * @example "admin_org"
   */
  @ApiPropertyOptional({ maxLength: MAX_CODE_LENGTH })
  @ValidateIf((body: CreateAuthTypeConfigurationRequest) => body.initial_system_admin_org_code !== undefined)
  @Trim()
  @OnlyForAuthType('hybrid')
  @IsString()
  @Length(1, MAX_CODE_LENGTH)
  @Matches(TEAM_CODE_PATTERN, { message: `initial_system_admin_org_code may hold ${CODE_RULE}` })
  initial_system_admin_org_code?: string;
}

export class UpdateAuthTypeConfigurationRequest {
  /** Required for an `internal` configuration; optional for `hybrid`. Stays unique, case-insensitive. */
  @ApiPropertyOptional({ maxLength: MAX_NAME_LENGTH })
  @IsOptional()
  @Trim()
  @IsSafeText(MAX_NAME_LENGTH)
  name?: string;

  /** `hybrid` only: the new external reference id of the configuration’s System Admin team */
  @ApiPropertyOptional({ maxLength: MAX_EXTERNAL_REF_LENGTH })
  @IsOptional()
  @Trim()
  @IsSafeText(MAX_EXTERNAL_REF_LENGTH)
  initial_system_admin_team_external_ref_id?: string;
}

export class ListAuthTypeConfigurationsQuery {
  /** Exact name, compared case-insensitively */
  @IsOptional()
  @Trim()
  @IsSafeText(MAX_NAME_LENGTH)
  name?: string;

  @ApiPropertyOptional({ enum: AUTH_TYPES })
  @IsOptional()
  @IsIn(AUTH_TYPES)
  auth_type?: AuthType;
}

export class AuthTypeConfigurationResponse {
  /** Identifier of the configuration */
  id: string;

  name: string;

  @ApiProperty({ enum: AUTH_TYPES })
  auth_type: AuthType;

  /** hybrid only */
  initial_system_admin_team_external_ref_id?: string;

  /** hybrid only: code of the System Admin team (generated when it was not given) */
  initial_system_admin_team_code?: string;

  /** hybrid only: org of the System Admin team (`admin_org` when it was not given) */
  initial_system_admin_org_code?: string;

  static from(doc: AuthTypeConfiguration & { _id: unknown }): AuthTypeConfigurationResponse {
    const response: AuthTypeConfigurationResponse = { id: String(doc._id), name: doc.name, auth_type: doc.auth_type };
    if (doc.auth_type === 'hybrid') {
      response.initial_system_admin_team_external_ref_id = doc.initial_system_admin_team_external_ref_id;
      response.initial_system_admin_team_code = doc.initial_system_admin_team_code;
      response.initial_system_admin_org_code = doc.initial_system_admin_org_code;
    }
    return response;
  }
}
