import { ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';
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
  @ApiProperty({ description: 'URL-encoded JSON object of string values (`{}` when none), e.g. `%7B%22period%22%3A%22202410%22%7D`' })
  @IsTemplateParams()
  templateParams: string;

  @ApiPropertyOptional({ description: 'Must equal the path id when given' })
  @IsOptional()
  @Matches(REPORT_MODEL_ID)
  reportModelId?: string;
}

export class ReportRow {
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string', nullable: true }, description: 'The grouping fields of the template, e.g. { providerName }' })
  key: Record<string, string | null>;

  @ApiProperty({ description: 'Cost in the corporate currency, rounded to cents' })
  cost: number;

  @ApiProperty()
  lineItems: number;
}

export class ReportExecutionResponse {
  @ApiProperty()
  reportModelId: string;

  @ApiProperty()
  templateId: string;

  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, description: 'The templateParams the model ran with' })
  params: Record<string, string>;

  @ApiProperty({ description: 'The corporate currency the costs are in' })
  currency: string;

  @ApiProperty({ type: [ReportRow] })
  rows: ReportRow[];

  @ApiProperty({ description: 'Sum of the rows' })
  total: number;

  @ApiProperty()
  generatedAt: string;

  @ApiProperty({
    enum: ['rollup', 'line-items'],
    description: 'Where the sums came from: the rollups (pre-summed by day and dimension) or the raw line items; the rows are the same either way',
  })
  source: 'rollup' | 'line-items';

  @ApiProperty({
    enum: ['day', 'month'],
    nullable: true,
    type: String,
    description: 'Which rollups answered: the monthly ones unless the query reads the day of the charges; null from the line items',
  })
  rollupLevel: 'day' | 'month' | null;
}

/** A saved execution of a model with `saveOutput`. */
export class SavedReportOutput extends OmitType(ReportExecutionResponse, ['source', 'rollupLevel'] as const) {
  @ApiProperty()
  id: string;

  @ApiProperty({ description: 'The user who ran it' })
  executedBy: string;
}

export class SavedReportOutputPage {
  @ApiProperty({ type: [SavedReportOutput] })
  items: SavedReportOutput[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as `cursor` for the next page; null on the last page' })
  nextCursor: string | null;
}
