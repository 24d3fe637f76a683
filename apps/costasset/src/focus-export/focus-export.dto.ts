import { ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { ListCostLineItemsQuery } from '../line-items/dto/list-cost-line-items.query';

/** The line-items list's filters (fields, `expr`, visibility) and the file format. */
export class ExportFocusQuery extends OmitType(ListCostLineItemsQuery, ['limit', 'cursor'] as const) {
  @ApiPropertyOptional({ enum: ['csv', 'parquet'], default: 'csv' })
  @IsOptional()
  @IsIn(['csv', 'parquet'])
  format?: 'csv' | 'parquet';
}
