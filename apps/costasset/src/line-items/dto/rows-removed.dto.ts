import { ApiProperty } from '@nestjs/swagger';

/** Rows removed from each collection of enriched data (deletion requests, housekeeping). */
export class RowsRemovedDto {
  @ApiProperty({ type: Number })
  costLineItems: number;

  @ApiProperty({ type: Number })
  assets: number;

  @ApiProperty({ type: Number })
  utilization: number;
}
