import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsObject, IsOptional, IsString, Matches, Min, Validate } from 'class-validator';
import { IsSafeText } from '@lib/http';
import { RESOURCE_GROUP_TYPES, ResourceGroupType } from '../schemas/resource-group.schema';
import { ContextShape } from './context-shape.validator';

/** `context` in the OpenAPI document: string keys mapping to arrays of strings. */
const CONTEXT_SCHEMA = { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } } as const;

const GROUP_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;
const toVersionNumber = ({ value }: { value: unknown }) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value);

const CONTEXT_DESCRIPTION =
  'String keys mapping to arrays of strings. `teams` lists the team codes whose members see the group ' +
  'and the data its expression selects (a System Admin sees every group).';
const EXPR_DESCRIPTION =
  'Boolean expression over providerName, billingAccountId, billingAccountName, assetAccountId, category, serviceName, region, period: ' +
  "`==`, `!=`, `&&`, `||`, `!`, parentheses, quoted strings, `tag('group', 'key' == 'value')`. " +
  'Placeholders (`${...}`) are not allowed in groups.';

export class CreateResourceGroupRequest {
  /**
   * Identifier chosen by the caller; generated when missing
   * @example "team-a-aws"
   */
  @IsOptional()
  @Matches(GROUP_ID, { message: '_id must be 1-128 letters, digits, or . _ : -' })
  _id?: string;

  /** `visibility` restricts what team members see; `budgetary` groups are budget scopes */
  @ApiProperty({ enum: RESOURCE_GROUP_TYPES })
  @IsIn(RESOURCE_GROUP_TYPES)
  type: ResourceGroupType;

  /** A string on create, e.g. "1"; the stored version starts at 1 and grows with each change */
  @IsOptional()
  @IsString()
  @Matches(/^\d{1,9}$/)
  version?: string;

  @ApiProperty({
    description: EXPR_DESCRIPTION,
    example: 'providerName == "aws" && (billingAccountName == "prod" || category == "Compute")',
  })
  @IsSafeText(4096, { multiline: true })
  expr: string;

  @ApiPropertyOptional({ ...CONTEXT_SCHEMA, description: CONTEXT_DESCRIPTION, example: { teams: ['TEAM-A'] } })
  @IsOptional()
  @IsObject()
  @Validate(ContextShape)
  context?: Record<string, string[]>;
}

/** PUT replaces expr, type and context; PATCH changes the fields given. */
export class UpdateResourceGroupRequest {
  /** The group to change */
  @Matches(GROUP_ID)
  _id: string;

  /** A number on update: when given, it must equal the stored version (optimistic concurrency, 409 otherwise) */
  @IsOptional()
  @Transform(toVersionNumber)
  @IsInt()
  @Min(1)
  version?: number;

  @ApiPropertyOptional({ enum: RESOURCE_GROUP_TYPES })
  @IsOptional()
  @IsIn(RESOURCE_GROUP_TYPES)
  type?: ResourceGroupType;

  @ApiPropertyOptional({ description: EXPR_DESCRIPTION })
  @IsOptional()
  @IsSafeText(4096, { multiline: true })
  expr?: string;

  @ApiPropertyOptional({ ...CONTEXT_SCHEMA, description: CONTEXT_DESCRIPTION })
  @IsOptional()
  @IsObject()
  @Validate(ContextShape)
  context?: Record<string, string[]>;
}

export class ReplaceResourceGroupRequest {
  /** The group to replace */
  @Matches(GROUP_ID)
  _id: string;

  /** When given, it must equal the stored version (409 otherwise) */
  @IsOptional()
  @Transform(toVersionNumber)
  @IsInt()
  @Min(1)
  version?: number;

  @ApiProperty({ enum: RESOURCE_GROUP_TYPES })
  @IsIn(RESOURCE_GROUP_TYPES)
  type: ResourceGroupType;

  @ApiProperty({ description: EXPR_DESCRIPTION })
  @IsSafeText(4096, { multiline: true })
  expr: string;

  @ApiPropertyOptional({ ...CONTEXT_SCHEMA, description: CONTEXT_DESCRIPTION })
  @IsOptional()
  @IsObject()
  @Validate(ContextShape)
  context?: Record<string, string[]>;
}

export class ResourceGroupResponse {
  _id: string;

  @ApiProperty({ enum: RESOURCE_GROUP_TYPES })
  type: ResourceGroupType;

  /** Grows by one with each change */
  version: number;

  expr: string;

  @ApiProperty({ ...CONTEXT_SCHEMA, example: { teams: ['TEAM-A'] } })
  context: Record<string, string[]>;
}
