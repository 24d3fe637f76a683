import { ApiProperty, OmitType } from '@nestjs/swagger';
import { IsOptional, Matches, ValidateBy } from 'class-validator';
import { REPORT_MODEL_ID } from './report-model.dto';

const MAX_TEMPLATE_PARAMS_LENGTH = 16_384;

/** One check with one message per case: a missing `templateParams` is "required", not "too long". */
function IsTemplateParams(): PropertyDecorator {
  return ValidateBy({
    name: 'isTemplateParams',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && value.length <= MAX_TEMPLATE_PARAMS_LENGTH,
      defaultMessage: (args) =>
        args?.value === undefined
          ? 'templateParams is required: a URL-encoded JSON object of strings, {} when the model has no placeholders'
          : typeof args.value !== 'string'
            ? 'templateParams must be given once, as one URL-encoded JSON object'
            : `templateParams must be at most ${MAX_TEMPLATE_PARAMS_LENGTH} characters long`,
    },
  });
}

export class ExecutionQuery {
  /** URL-encoded JSON object of string values (`{}` when none), e.g. `%7B%22period%22%3A%22202410%22%7D` */
  @IsTemplateParams()
  templateParams: string;

  /** Must equal the path id when given */
  @IsOptional()
  @Matches(REPORT_MODEL_ID)
  reportModelId?: string;
}

export class ReportRow {
  /** The grouping fields of the template, e.g. { providerName } */
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string', nullable: true } })
  key: Record<string, string | null>;

  /** Cost in the corporate currency, rounded to cents */
  cost: number;

  lineItems: number;
}

export class ReportExecutionResponse {
  reportModelId: string;

  templateId: string;

  /** The templateParams the model ran with */
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } })
  params: Record<string, string>;

  /** The corporate currency the costs are in */
  currency: string;

  rows: ReportRow[];

  /** Sum of the rows */
  total: number;

  generatedAt: string;

  /** Where the sums came from: the rollups (pre-summed by day and dimension) or the raw line items; the rows are the same either way */
  @ApiProperty({ enum: ['rollup', 'line-items'] })
  source: 'rollup' | 'line-items';

  /** Which rollups answered: the monthly ones unless the query reads the day of the charges; null from the line items */
  @ApiProperty({ enum: ['day', 'month'], nullable: true })
  rollupLevel: 'day' | 'month' | null;
}

/** A saved execution of a model with `saveOutput`. */
export class SavedReportOutput extends OmitType(ReportExecutionResponse, ['source', 'rollupLevel'] as const) {
  id: string;

  /** The user who ran it */
  executedBy: string;
}

export class SavedReportOutputPage {
  items: SavedReportOutput[];

  /** Pass as `cursor` for the next page; null on the last page */
  @ApiProperty({ type: String, nullable: true })
  nextCursor: string | null;
}
