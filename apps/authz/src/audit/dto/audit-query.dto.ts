import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { IsSafeText, PageQuery } from '@lib/http';

export class AuditQuery extends PageQuery {
  @ApiPropertyOptional({ description: 'Only records of this resource, e.g. `configvalue` or `featureflag`' })
  @IsOptional()
  @IsSafeText(128)
  resource?: string;

  @ApiPropertyOptional({ description: 'Only records of this action, e.g. `create` or `update`' })
  @IsOptional()
  @IsSafeText(128)
  action?: string;
}
