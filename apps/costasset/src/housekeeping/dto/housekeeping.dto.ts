import { ApiProperty } from '@nestjs/swagger';
import { RowsRemovedDto } from '../../line-items/dto/rows-removed.dto';

export class RemovedTemporaryDto {
  /** Saved report outputs generated before `reportOutputsBefore` */
  reportOutputs: number;

  /** Succeeded, failed or terminated jobs finished before `jobsBefore` */
  jobs: number;
}

export class TemporaryCleanupResult {
  removed: RemovedTemporaryDto;

  @ApiProperty({ format: 'date-time' })
  reportOutputsBefore: string;

  @ApiProperty({ format: 'date-time' })
  jobsBefore: string;
}

export class EnrichedCleanupResult {
  removed: RowsRemovedDto;

  /** Upload records set to `cleaned` (those that were `enriched`, `imported`, `failed` or `superseded`) */
  gpdUploadsCleaned: number;
}

export class OutdatedCleanupResult {
  removed: RowsRemovedDto;

  /** Rows with a period before this one (YYYYMM) were removed */
  cutoffPeriod: string;

  /** DATA_RETENTION_MONTHS */
  retentionMonths: number;
}
