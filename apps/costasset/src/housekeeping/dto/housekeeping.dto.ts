import { ApiProperty } from '@nestjs/swagger';
import { RowsRemovedDto } from '../../line-items/dto/rows-removed.dto';

export class RemovedTemporaryDto {
  @ApiProperty({ type: Number, description: 'Saved report outputs generated before `reportOutputsBefore`' })
  reportOutputs: number;

  @ApiProperty({ type: Number, description: 'Succeeded, failed or terminated jobs finished before `jobsBefore`' })
  jobs: number;
}

export class TemporaryCleanupResult {
  @ApiProperty({ type: RemovedTemporaryDto })
  removed: RemovedTemporaryDto;

  @ApiProperty({ type: String, format: 'date-time' })
  reportOutputsBefore: string;

  @ApiProperty({ type: String, format: 'date-time' })
  jobsBefore: string;
}

export class EnrichedCleanupResult {
  @ApiProperty({ type: RowsRemovedDto })
  removed: RowsRemovedDto;

  @ApiProperty({ type: Number, description: 'GPD upload records set to `cleaned` (those that were `enriched` or `failed`)' })
  gpdUploadsCleaned: number;
}

export class OutdatedCleanupResult {
  @ApiProperty({ type: RowsRemovedDto })
  removed: RowsRemovedDto;

  @ApiProperty({ type: String, description: 'Rows with a period before this one (YYYYMM) were removed' })
  cutoffPeriod: string;

  @ApiProperty({ type: Number, description: 'DATA_RETENTION_MONTHS' })
  retentionMonths: number;
}
