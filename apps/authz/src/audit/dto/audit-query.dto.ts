import { IsOptional } from 'class-validator';
import { IsSafeText, PageQuery } from '@lib/http';

export class AuditQuery extends PageQuery {
  /** Only records of this resource, e.g. `configvalue` or `featureflag` */
  @IsOptional()
  @IsSafeText(128)
  resource?: string;

  /** Only records of this action, e.g. `create` or `update` */
  @IsOptional()
  @IsSafeText(128)
  action?: string;
}
