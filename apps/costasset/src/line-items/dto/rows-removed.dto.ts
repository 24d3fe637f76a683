/** Rows removed from each collection of enriched data (deletion requests, housekeeping). */
export class RowsRemovedDto {
  costLineItems: number;

  assets: number;

  utilization: number;
}
