import { Injectable } from '@nestjs/common';
import type { Principal } from '@lib/auth';
import { Problems } from '@lib/core';
import { FeatureFlagRecord, MessageBus, SetFlagReply } from '@lib/messaging';

const FLAG_KEY = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * The flag wrappers (docs/interface.md#currency-and-feature-flag-wrappers): the core's flag
 * operations, reached over NATS on behalf of the caller.
 */
@Injectable()
export class FeatureFlagsService {
  constructor(private readonly bus: MessageBus) {}

  async list(principal: Principal): Promise<FeatureFlagRecord[]> {
    return (await this.bus.request('core.flags.list', { tenantId: principal.tenantId })).flags;
  }

  set(principal: Principal, key: string, value: string, mode: 'create' | 'update'): Promise<SetFlagReply> {
    return this.bus.request('core.flags.set', { tenantId: principal.tenantId, key, value, mode, actor: principal.userId });
  }

  /** Insights housekeeping: `{ FLAG: "true", ... }` sets each flag (created when missing). */
  async setMany(principal: Principal, flags: Record<string, unknown> | undefined): Promise<FeatureFlagRecord[]> {
    if (flags === null || typeof flags !== 'object' || Array.isArray(flags)) {
      throw Problems.badRequest('VALIDATION_FAILED', 'The body must be a JSON object of flags, as { "FLAG": "true" }');
    }
    const entries = Object.entries(flags);
    if (entries.length === 0 || entries.length > 50)
      throw Problems.badRequest('VALIDATION_FAILED', 'Give 1 to 50 flags as { "FLAG": "true" }');
    const invalid = entries.filter(([key, value]) => !FLAG_KEY.test(key) || (value !== 'true' && value !== 'false'));
    if (invalid.length > 0) {
      throw Problems.badRequest(
        'VALIDATION_FAILED',
        'Each flag needs a valid name and the value "true" or "false"',
        invalid.map(([key]) => ({ field: key, messages: ['must be "true" or "false" under a name of 1-128 letters, digits, or _ . -'] })),
      );
    }
    const results: FeatureFlagRecord[] = [];
    for (const [key, value] of entries) results.push((await this.set(principal, key, value as string, 'create')).flag);
    return results;
  }
}
