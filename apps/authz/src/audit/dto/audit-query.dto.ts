import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsMongoId, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

export class AuditQuery {
  @ApiPropertyOptional({ description: 'Only records of this resource, e.g. `configvalue` or `featureflag`' })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  resource?: string;

  @ApiPropertyOptional({ description: 'Only records of this action, e.g. `create` or `update`' })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  action?: string;

  @ApiPropertyOptional({ description: 'Page size', minimum: 1, maximum: 200, default: 50 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  limit: number = 50;

  @ApiPropertyOptional({ description: 'The `nextCursor` of the previous page' })
  @IsOptional()
  @IsMongoId({ message: 'cursor must be a nextCursor returned by this endpoint' })
  cursor?: string;
}
