import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { REPORT_MODEL_ID } from './report-model.dto';

export class ExecutionQuery {
  @ApiProperty({ description: 'URL-encoded JSON object of string values (`{}` when none), e.g. `%7B%22period%22%3A%22202410%22%7D`' })
  @IsString()
  @MaxLength(16_384)
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
}

/** A saved execution of a model with `saveOutput`. */
export class SavedReportOutput extends ReportExecutionResponse {
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
