import { ApiProperty, ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { IsSafeText } from '@lib/http';
import { DIMENSION_NAME_PATTERN, DIMENSION_NAME_RULE } from '../../expressions';
import { SPLIT_METHODS, SplitMethod } from '../split-engine';

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
  @IsSafeText(200)
  @Matches(TAG_GROUP, { message: 'group must be 1-200 characters without : or /' })
  group?: string | null;

  /** @example "owner" */
  @IsSafeText(200)
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

/** The rules of a dimension and what matches none: saved, or previewed. */
export class DimensionRules {
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

class DimensionFields extends DimensionRules {
  @ApiPropertyOptional({ maxLength: 500 })
  @IsOptional()
  @IsSafeText(500)
  description?: string;
}

export class DimensionRequest extends DimensionFields {
  /** @example "environment" */
  @Matches(DIMENSION_NAME_PATTERN, { message: `name: ${DIMENSION_NAME_RULE}` })
  name: string;
}

export class UpdateDimensionRequest extends DimensionFields {
  /** The version this change was made from: 409 DIMENSION_VERSION_CONFLICT when someone saved another since */
  @IsInt()
  @Min(1)
  version: number;
}

export class DimensionPreviewRequest extends IntersectionType(PeriodRangeQuery, DimensionRules) {}

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

export const MAX_SPLITS = 50;
export const MAX_SPLIT_TARGETS = 500;
/** `dimension:<name>` or `tag:<group>:<key>` (an activated key of one group). */
const TARGET = /^(dimension:[a-z0-9][a-z0-9_-]{0,62}|tag:[^:/]{1,200}:.{1,200})$/s;

export class SplitTargetDto {
  /** @example "payments" */
  @IsSafeText(200)
  value: string;

  /** The fixed method's share in percent (the targets' percentages sum to 100) */
  @ApiPropertyOptional({ minimum: 0, maximum: 100 })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(100)
  percent?: number;
}

export class SplitRuleDto {
  /** @example "Support fees" */
  @IsSafeText(100)
  name: string;

  /**
   * The cost to split: an expression reading rolled-up fields, activated tag keys and dimensions
   * @example "serviceName == 'AWS Support (Business)'"
   */
  @IsString()
  @MinLength(1)
  @MaxLength(4096)
  source: string;

  /**
   * Where the cost goes: the values of a dimension (`dimension:<name>`) or of an activated tag key (`tag:<group>:<key>`)
   * @example "dimension:team"
   */
  @Matches(TARGET, { message: 'target must be dimension:<name> or tag:<group>:<key>' })
  target: string;

  @ApiProperty({ enum: SPLIT_METHODS })
  @IsIn(SPLIT_METHODS)
  method: SplitMethod;

  @ApiProperty({ type: [SplitTargetDto], minItems: 1, maxItems: MAX_SPLIT_TARGETS })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_SPLIT_TARGETS)
  @ValidateNested({ each: true })
  @Type(() => SplitTargetDto)
  targets: SplitTargetDto[];
}

export class SplitRulesRequest {
  @ApiProperty({ type: [SplitRuleDto], maxItems: MAX_SPLITS, description: 'Every split rule, in the order they run' })
  @IsArray()
  @ArrayMaxSize(MAX_SPLITS)
  @ValidateNested({ each: true })
  @Type(() => SplitRuleDto)
  rules: SplitRuleDto[];
}

export class SplitTargetResponse {
  value: string;
  @ApiPropertyOptional()
  percent?: number;
}

export class SplitRuleResponse {
  name: string;
  source: string;
  target: string;
  @ApiProperty({ enum: SPLIT_METHODS })
  method: SplitMethod;
  @ApiProperty({ type: [SplitTargetResponse] })
  targets: SplitTargetResponse[];
}

export class SplitRulesResponse {
  @ApiProperty({ type: [SplitRuleResponse] })
  rules: SplitRuleResponse[];
  revision: number;
}

export const SHOWBACK_FORMATS = ['json', 'csv', 'focus'] as const;

export class ShowbackQuery {
  /**
   * The dimension of the statement: `dimension:<name>` or `tag:<group>:<key>`
   * @example "dimension:team"
   */
  @ApiProperty({ example: 'dimension:team' })
  @Matches(TARGET, { message: 'dimension must be dimension:<name> or tag:<group>:<key>' })
  dimension: string;

  /**
   * The month, YYYYMM (default: the latest period holding data)
   * @example "202403"
   */
  @IsOptional()
  @Matches(PERIOD, { message: 'period must be YYYYMM' })
  period?: string;

  @ApiPropertyOptional({ enum: SHOWBACK_FORMATS, default: 'json' })
  @IsOptional()
  @IsIn(SHOWBACK_FORMATS)
  format?: (typeof SHOWBACK_FORMATS)[number];
}

export class ShowbackReceived {
  rule: string;
  amount: number;
}

export class ShowbackLine {
  /** The value (null: line items without the tag) */
  @ApiProperty({ type: String, nullable: true })
  value: string | null;
  /** Whether this is what no rule allocates (the dimension's default, or no tag) */
  unallocated: boolean;
  /** Its own cost, less what split rules took from it */
  direct: number;
  /** What split rules gave it */
  shared: number;
  @ApiProperty({ type: [ShowbackReceived], description: 'What each split rule gave it (their sum is `shared`)' })
  received: ShowbackReceived[];
  /** direct + shared */
  total: number;
}

export class ShowbackShare {
  value: string;
  amount: number;
}

export class ShowbackSplit {
  name: string;
  /** The cost the rule's source took */
  source: number;
  @ApiProperty({ type: [ShowbackShare] })
  shares: ShowbackShare[];
}

export class ShowbackResponse {
  period: string;
  dimension: string;
  currency: string;
  @ApiProperty({ type: [ShowbackLine] })
  lines: ShowbackLine[];
  @ApiProperty({ type: [ShowbackSplit] })
  splits: ShowbackSplit[];
  /** The month's cost: the sum of `total` over the lines */
  total: number;
  @ApiProperty({ enum: ['rollup', 'line-items'] })
  source: 'rollup' | 'line-items';
}

export class DeclaredProviderDto {
  /**
   * The name queries show
   * @example "aws"
   */
  @IsSafeText(100)
  name: string;

  /**
   * Other names files give it (compared without regard to case)
   * @example ["Amazon Web Services", "AWS"]
   */
  @ApiProperty({ type: [String], maxItems: 50 })
  @IsArray()
  @ArrayMaxSize(50)
  @IsSafeText(100, { each: true })
  aliases: string[];
}

export class ProvidersRequest {
  @ApiProperty({ type: [DeclaredProviderDto], maxItems: 100 })
  @IsArray()
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => DeclaredProviderDto)
  providers: DeclaredProviderDto[];
}

export class ProvidersResponse {
  @ApiProperty({ type: [DeclaredProviderDto] })
  providers: DeclaredProviderDto[];
  revision: number;
}
