import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PageOf, type Paged } from '@lib/http';
import type { AuditRecord } from '../schemas/audit-record.schema';

const STATE = { type: 'object', additionalProperties: true } as const;

export class AuditRecordResponse {
  @ApiProperty({ description: 'Record id' })
  id: string;

  @ApiProperty({ description: 'User id of whoever made the change' })
  actor: string;

  @ApiProperty({ description: 'What was done, e.g. `create` or `update`' })
  action: string;

  @ApiProperty({ description: 'Kind of the changed resource, e.g. `configvalue` or `featureflag`' })
  resource: string;

  @ApiPropertyOptional({ description: 'Id or key of the changed resource' })
  resourceId?: string;

  @ApiPropertyOptional({ ...STATE, description: 'State before the change (absent on creation); secrets read `********`' })
  before?: unknown;

  @ApiPropertyOptional({ ...STATE, description: 'State after the change; secrets read `********`' })
  after?: unknown;

  @ApiProperty({ type: String, format: 'date-time', description: 'When the change was recorded' })
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
