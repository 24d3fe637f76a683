import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsInt, IsOptional, IsString, Matches, MaxLength, Min, MinLength, ValidateNested } from 'class-validator';
import { IsSafeText } from '@lib/http';
import { DIMENSION_NAME_PATTERN, DIMENSION_NAME_RULE } from '../../expressions';

export const MAX_RULES = 500;
export const MAX_TAG_KEYS = 50;
export const MAX_DIMENSIONS = 50;
export const DEFAULT_UNALLOCATED = 'unallocated';
/** The group of a tag key: FOCUS tag names split at their first `:` or `/` (docs/focus.md). */
const TAG_GROUP = /^[^:/]{1,200}$/s;
const PERIOD = /^\d{4}(0[1-9]|1[0-2])$/;

export class TagKeyRequest {
  /**
   * The key's group; leave it out to activate the key in every group
   * @example "team"
   */
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 200 })
  @IsOptional()
  @IsString()
  @Matches(TAG_GROUP, { message: 'group must be 1-200 characters without : or /' })
  group?: string | null;

  /** @example "owner" */
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  key: string;
}

export class ActiveTagKeyResponse {
  @ApiProperty({ type: String, nullable: true, description: 'null: the key in any group' })
  group: string | null;
  key: string;
  activatedAt: string;
  activatedBy: string;
}

export class ObservedTagKeyResponse {
  group: string;
  key: string;
  /** Line items carrying the key in the periods read */
  lineItems: number;
  /** Their cost (corporate currency) */
  cost: number;
  /** The share of the periods' cost that carries the key: 0 to 1 */
  coverage: number;
  /** Whether the key is activated (rolled up) */
  active: boolean;
}

export class ObservedTagKeysResponse {
  /** The first and last period read (YYYYMM) */
  from: string;
  to: string;
  /** The cost of every line item of those periods */
  totalCost: number;
  @ApiProperty({ type: [ObservedTagKeyResponse] })
  items: ObservedTagKeyResponse[];
}

export class PeriodRangeQuery {
  /** First period, YYYYMM (default: the latest period holding data) */
  @IsOptional()
  @Matches(PERIOD, { message: 'from must be YYYYMM' })
  from?: string;

  /** Last period, YYYYMM (default: `from`, or the latest period holding data) */
  @IsOptional()
  @Matches(PERIOD, { message: 'to must be YYYYMM' })
  to?: string;
}

export class DimensionRuleDto {
  /**
   * An expression of the expression language (no placeholders, no dimension(...)); the first rule matching a line item sets its value
   * @example "tag('default', 'env' == 'prod') || tag('default', 'Env' == 'prod')"
   */
  @IsString()
  @MinLength(1)
  @MaxLength(4096)
  expr: string;

  /** @example "production" */
  @IsSafeText(200)
  value: string;
}

export class DimensionRequest {
  /** @example "environment" */
  @Matches(DIMENSION_NAME_PATTERN, { message: `name: ${DIMENSION_NAME_RULE}` })
  name: string;

  @ApiPropertyOptional({ maxLength: 500 })
  @IsOptional()
  @IsSafeText(500)
  description?: string;

  @ApiProperty({ type: [DimensionRuleDto], maxItems: MAX_RULES })
  @IsArray()
  @ArrayMaxSize(MAX_RULES)
  @ValidateNested({ each: true })
  @Type(() => DimensionRuleDto)
  rules: DimensionRuleDto[];

  /** What matches no rule */
  @ApiPropertyOptional({ default: DEFAULT_UNALLOCATED, maxLength: 200 })
  @IsOptional()
  @IsSafeText(200)
  defaultValue?: string;
}

export class UpdateDimensionRequest {
  @ApiPropertyOptional({ maxLength: 500 })
  @IsOptional()
  @IsSafeText(500)
  description?: string;

  @ApiProperty({ type: [DimensionRuleDto], maxItems: MAX_RULES })
  @IsArray()
  @ArrayMaxSize(MAX_RULES)
  @ValidateNested({ each: true })
  @Type(() => DimensionRuleDto)
  rules: DimensionRuleDto[];

  @ApiPropertyOptional({ default: DEFAULT_UNALLOCATED, maxLength: 200 })
  @IsOptional()
  @IsSafeText(200)
  defaultValue?: string;

  /** The version this change was made from: 409 DIMENSION_VERSION_CONFLICT when someone saved another since */
  @IsInt()
  @Min(1)
  version: number;
}

export class DimensionPreviewRequest extends PeriodRangeQuery {
  @ApiProperty({ type: [DimensionRuleDto], maxItems: MAX_RULES })
  @IsArray()
  @ArrayMaxSize(MAX_RULES)
  @ValidateNested({ each: true })
  @Type(() => DimensionRuleDto)
  rules: DimensionRuleDto[];

  @ApiPropertyOptional({ default: DEFAULT_UNALLOCATED, maxLength: 200 })
  @IsOptional()
  @IsSafeText(200)
  defaultValue?: string;
}

export class DimensionRuleResponse {
  expr: string;
  value: string;
}

export class DimensionResponse {
  name: string;
  @ApiPropertyOptional()
  description?: string;
  @ApiProperty({ type: [DimensionRuleResponse] })
  rules: DimensionRuleResponse[];
  defaultValue: string;
  version: number;
  createdAt: string;
  updatedAt: string;
  updatedBy: string;
}

export class DimensionListResponse {
  @ApiProperty({ type: [DimensionResponse] })
  items: DimensionResponse[];
}

export class DimensionVersionResponse {
  version: number;
  @ApiProperty({ enum: ['created', 'updated', 'deleted'] })
  change: 'created' | 'updated' | 'deleted';
  @ApiPropertyOptional()
  description?: string;
  @ApiProperty({ type: [DimensionRuleResponse] })
  rules: DimensionRuleResponse[];
  defaultValue: string;
  changedAt: string;
  changedBy: string;
}

export class DimensionVersionListResponse {
  @ApiProperty({ type: [DimensionVersionResponse] })
  items: DimensionVersionResponse[];
}

export class PreviewShare {
  /** Line items taken */
  lineItems: number;
  /** Their cost (corporate currency) */
  cost: number;
}

export class PreviewRuleShare extends PreviewShare {
  /** The rule's position (0 first) */
  rule: number;
  value: string;
}

export class PreviewValueShare extends PreviewShare {
  value: string;
  /** Whether this is the default (what no rule takes) */
  unallocated: boolean;
}

export class DimensionPreviewResponse {
  from: string;
  to: string;
  @ApiProperty({ type: [PreviewRuleShare] })
  rules: PreviewRuleShare[];
  @ApiProperty({ type: PreviewValueShare, description: 'What no rule takes: the default value' })
  unallocated: PreviewValueShare;
  @ApiProperty({ type: [PreviewValueShare], description: 'Per value, the default included, largest cost first' })
  values: PreviewValueShare[];
  @ApiProperty({ type: PreviewShare })
  total: PreviewShare;
}

export class AllocationRollupsState {
  /** Whether the rollups hold the current settings (queries on tags and dimensions answer from them) */
  current: boolean;
  /** The job recomputing them after the latest change */
  @ApiPropertyOptional({ type: String })
  jobId?: string;
}

export class AllocationSettingsResponse {
  /** Grows with every change */
  revision: number;
  @ApiProperty({ type: [ActiveTagKeyResponse] })
  tagKeys: ActiveTagKeyResponse[];
  @ApiProperty({ type: [String] })
  dimensions: string[];
  @ApiProperty({ type: AllocationRollupsState })
  rollups: AllocationRollupsState;
}
