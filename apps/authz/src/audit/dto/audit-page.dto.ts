import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PageOf } from '@lib/http';
import type { Paged } from '@lib/core';
import type { AuditRecord } from '../schemas/audit-record.schema';

const STATE = { type: 'object', additionalProperties: true } as const;

export class AuditRecordResponse {
  /** Record id */
  id: string;

  /** User id of whoever made the change */
  actor: string;

  /** What was done, e.g. `create` or `update` */
  action: string;

  /** Kind of the changed resource, e.g. `configvalue` or `featureflag` */
  resource: string;

  /** Id or key of the changed resource */
  resourceId?: string;

  /** State before the change (absent on creation); secrets read `********` */
  @ApiPropertyOptional({ ...STATE })
  before?: unknown;

  /** State after the change; secrets read `********` */
  @ApiPropertyOptional({ ...STATE })
  after?: unknown;

  /** When the change was recorded */
  @ApiProperty({ format: 'date-time' })
  at: string;
}

export class AuditPageResponse extends PageOf(AuditRecordResponse) {
  static from(page: Paged<AuditRecord & { _id: unknown }>): AuditPageResponse {
    return {
      items: page.items.map((record) => ({
        id: String(record._id),
        actor: record.actor,
        action: record.action,
        resource: record.resource,
        resourceId: record.resourceId,
        before: record.before,
        after: record.after,
        at: (record.at ?? new Date(0)).toISOString(),
      })),
      nextCursor: page.nextCursor,
    };
  }
}
