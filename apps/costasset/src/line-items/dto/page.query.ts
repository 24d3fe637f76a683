import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

/** Cursor pagination shared by the list endpoints. */
export class PageQuery {
  @ApiPropertyOptional({ type: Number, minimum: 1, maximum: 1000, default: 100 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
  limit?: number;

  @ApiPropertyOptional({ type: String, description: 'The `nextCursor` of the previous page' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  cursor?: string;
}
