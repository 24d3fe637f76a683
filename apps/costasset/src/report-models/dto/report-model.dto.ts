import { ApiProperty, ApiPropertyOptional, IntersectionType, OmitType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsOptional, IsString, Matches } from 'class-validator';
import { IsSafeText } from '@lib/http';
import { REPORT_TEMPLATE_IDS, ReportTemplateId } from '../report-templates';
import { REPORT_SCOPES, ReportScope } from '../schemas/report-model.schema';

export const REPORT_MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;
const toBoolean = ({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value);

const EXPR =
  'Filter expression (`==`, `!=`, `&&`, `||`, `!`, parentheses, `tag(group, key == value)`) over providerName, billingAccountId, ' +
  'billingAccountName, assetAccountId, category, serviceName, region, period; `${name}` placeholders are filled from `templateParams` ' +
  'at execution, always as literal strings.';
const VTAGS = 'Ids of `visibility` resource groups; their expressions are ANDed with the model expression at execution.';

export class ReportModelPath {
  /** Identifier of the report model */
  @Matches(REPORT_MODEL_ID, { message: 'reportModelID must be 1-128 letters, digits, or . _ : -' })
  reportModelID: string;
}

export class CreateReportModelQuery {
  @ApiProperty({ enum: REPORT_TEMPLATE_IDS })
  @IsIn(REPORT_TEMPLATE_IDS)
  templateId: ReportTemplateId;

  /** Keep the output of each execution (readable at `/outputs`) */
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  saveOutput?: boolean;

  /** Accepted for compatibility; must equal the path id when given */
  @IsOptional()
  @Matches(REPORT_MODEL_ID)
  reportModelId?: string;
}

export class ReplaceReportModelQuery {
  /** Changes the template when given */
  @ApiPropertyOptional({ enum: REPORT_TEMPLATE_IDS })
  @IsOptional()
  @IsIn(REPORT_TEMPLATE_IDS)
  templateId?: ReportTemplateId;

  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  saveOutput?: boolean;

  /** Must equal the path id when given */
  @IsOptional()
  @Matches(REPORT_MODEL_ID)
  reportModelId?: string;
}

export class CreateReportModelRequest {
  /** With saveOutput: keep every output (true) or only the last (false) */
  @IsBoolean()
  append: boolean;

  @ApiProperty({ enum: ['v1'] })
  @IsIn(['v1'])
  type: string;

  /** `public`: the tenant; `private`: its creator and System Admins. Default public */
  @ApiPropertyOptional({ enum: REPORT_SCOPES })
  @IsOptional()
  @IsIn(REPORT_SCOPES)
  scope?: ReportScope;

  @ApiProperty({ type: [String], description: VTAGS })
  @IsArray()
  @ArrayMaxSize(20)
  @IsString({ each: true })
  @Matches(REPORT_MODEL_ID, { each: true })
  vtags: string[];

  @ApiProperty({ description: EXPR, example: 'period == ${period} && tag("env", "stage" == "prod")' })
  @IsSafeText(4096, { multiline: true })
  expr: string;
}

class RequiredScope {
  @ApiProperty({ enum: REPORT_SCOPES })
  @IsIn(REPORT_SCOPES)
  scope: ReportScope;
}

/** PUT: every field; the model is replaced as a whole. */
export class ReplaceReportModelRequest extends IntersectionType(OmitType(CreateReportModelRequest, ['scope'] as const), RequiredScope) {}

/** PATCH: the fields given replace the stored ones. */
export class PatchReportModelRequest {
  @IsOptional()
  @IsBoolean()
  append?: boolean;

  @ApiPropertyOptional({ enum: ['v1'] })
  @IsOptional()
  @IsIn(['v1'])
  type?: string;

  @ApiPropertyOptional({ enum: REPORT_SCOPES })
  @IsOptional()
  @IsIn(REPORT_SCOPES)
  scope?: ReportScope;

  @ApiPropertyOptional({ type: [String], description: VTAGS })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @Matches(REPORT_MODEL_ID, { each: true })
  vtags?: string[];

  @ApiPropertyOptional({ description: EXPR })
  @IsOptional()
  @IsSafeText(4096, { multiline: true })
  expr?: string;
}

export class ReportModelResponse {
  reportModelId: string;

  @ApiProperty({ enum: REPORT_TEMPLATE_IDS })
  templateId: string;

  type: string;

  @ApiProperty({ enum: REPORT_SCOPES })
  scope: string;

  vtags: string[];

  expr: string;

  append: boolean;

  saveOutput: boolean;

  /** Placeholders the expression needs in templateParams */
  parameters: string[];

  createdBy: string;
}
