import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { PageQuery } from '@lib/http';

export class AuditQuery extends PageQuery {
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
}
