import { Injectable } from '@nestjs/common';
import type { Principal } from '@lib/auth';
import { AuditRepository } from './audit.repository';
import { maskSecrets } from './mask-secrets';

export interface AuditEntry {
  action: string;
  resource: string;
  resourceId?: string;
  before?: unknown;
  after?: unknown;
}

/** Records every configuration change of a tenant; secrets are masked before they are stored. */
@Injectable()
export class AuditService {
  constructor(private readonly records: AuditRepository) {}

  async record(principal: Pick<Principal, 'tenantId' | 'userId'>, entry: AuditEntry): Promise<void> {
    await this.records.create(principal.tenantId, {
      actor: principal.userId,
      action: entry.action,
      resource: entry.resource,
      resourceId: entry.resourceId,
      before: entry.before === undefined ? undefined : maskSecrets(entry.before),
      after: entry.after === undefined ? undefined : maskSecrets(entry.after),
    });
  }

  /** Newest first: an audit log is read from the latest change backwards. */
  page(tenantId: string, filter: { resource?: string; action?: string }, limit: number, cursor?: string) {
    const query: Record<string, string> = {};
    if (filter.resource) query.resource = filter.resource;
    if (filter.action) query.action = filter.action;
    return this.records.page(tenantId, query, limit, cursor, 'newest');
  }
}
