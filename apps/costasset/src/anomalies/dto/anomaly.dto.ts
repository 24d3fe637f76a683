import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsIn, IsInt, IsNumber, IsOptional, Matches, Max, Min } from 'class-validator';
import { PageOf, PageQuery } from '@lib/http';
import { ANOMALY_STATUSES, type AnomalyStatus } from '../schemas/anomaly.schema';

const DAY = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

export class ListAnomaliesQuery extends PageQuery {
  /**
   * First day (UTC, inclusive)
   * @example "2026-01-01"
   */
  @IsOptional()
  @Matches(DAY, { message: 'from must be YYYY-MM-DD' })
  from?: string;

  /**
   * Last day (UTC, inclusive)
   * @example "2026-01-31"
   */
  @IsOptional()
  @Matches(DAY, { message: 'to must be YYYY-MM-DD' })
  to?: string;

  @ApiPropertyOptional({ enum: ANOMALY_STATUSES })
  @IsOptional()
  @IsIn(ANOMALY_STATUSES)
  status?: AnomalyStatus;
}

export class AnomalyDto {
  id: string;

  /** The series: provider, billing account and service of the line items (dimension → value, null when they have none) */
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string', nullable: true },
    example: { providerName: 'aws', billingAccountId: '123456789012', serviceName: 'Amazon EC2' },
  })
  dimensions: Record<string, string | null>;

  /**
   * The UTC day of the charges
   * @example "2026-01-14"
   */
  day: string;

  /** What the series' history predicted for the day (corporate currency, not rounded) */
  expected: number;

  /** The day's cost (corporate currency, not rounded) */
  actual: number;

  /** actual − expected */
  impact: number;

  /** How unusual the day is: the impact in robust standard deviations of the series' daily noise */
  score: number;

  /** `open` until someone acknowledges it or dismisses it (not an anomaly); a later run never re-opens it */
  @ApiProperty({ enum: ANOMALY_STATUSES })
  status: AnomalyStatus;

  /** The detection run (job id) that last scored it */
  detectionRunId: string;

  createdAt: Date;
  updatedAt: Date;
}

export class AnomalyPage extends PageOf(AnomalyDto) {}

export class UpdateAnomalyRequest {
  @ApiProperty({ enum: ANOMALY_STATUSES })
  @IsDefined()
  @IsIn(ANOMALY_STATUSES)
  status: AnomalyStatus;
}

/** The tenant's detection parameters; in a PUT, one left out returns to its default */
export class AnomalySettingsRequest {
  /** Least impact (actual − expected) of an anomaly, in the corporate currency (default 10) */
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(1e12)
  minImpact?: number;

  /** Least impact as a share of the expected cost: 0.1 = 10% (default 0.1) */
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(100)
  minImpactRatio?: number;

  /** Least score (impact in robust standard deviations of the daily noise) (default 3.5) */
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(1)
  @Max(100)
  minScore?: number;

  /** Days of history each day is compared with (default 56) */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(14)
  @Max(365)
  windowDays?: number;
}

export class AnomalySettingsResponse {
  /** Least impact in the corporate currency */
  minImpact: number;
  /** Least impact as a share of the expected cost */
  minImpactRatio: number;
  /** Least score */
  minScore: number;
  /** Days of history each day is compared with */
  windowDays: number;
  /** Least days of history before a series' days are scored (not settable) */
  minHistoryDays: number;
}
