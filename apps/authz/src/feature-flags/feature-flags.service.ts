import { Injectable } from '@nestjs/common';
import type { Principal } from '@lib/auth';
import { FieldProblem, Problems } from '@lib/core';
import { FeatureFlagRecord, MessageBus, SetFlagRequest } from '@lib/messaging';
import { AuditService } from '../audit/audit.service';
import { CONFIG_KEY_PATTERN, CONFIG_KEY_RULE } from '../configuration/config-keys';
import { FlagBody, readFlagBody } from './flag-body';
import { FeatureFlagRepository } from './feature-flag.repository';
import { isFlagValue } from './flag-values';

type Actor = Pick<Principal, 'tenantId' | 'userId'>;
/** `create` (POST) creates or sets the flag; `update` (PUT) sets an existing flag only. */
export type FlagWriteMode = SetFlagRequest['mode'];

export interface FlagWriteResult {
  flag: FeatureFlagRecord;
  created: boolean;
}

export const FLAG_AUDIT_RESOURCE = 'featureflag';

const record = (key: string, value: string): FeatureFlagRecord => ({ configurationkey: key, configurationvalue: value });
const problem = (field: string, message: string): FieldProblem => ({ field, messages: [message] });

/** Feature flags of a tenant: `true` / `false` per key, audited, announced on `core.flags.changed`. */
@Injectable()
export class FeatureFlagsService {
  constructor(
    private readonly flags: FeatureFlagRepository,
    private readonly audit: AuditService,
    private readonly bus: MessageBus,
  ) {}

  async list(tenantId: string): Promise<FeatureFlagRecord[]> {
    const flags = await this.flags.find(tenantId, {}, { sort: { key: 1 } });
    return flags.map((flag) => record(flag.key, flag.value));
  }

  /** An HTTP body in either flag shape (see `readFlagBody`); `pathKey` for PUT. */
  write(actor: Actor, body: FlagBody, mode: FlagWriteMode, pathKey?: string): Promise<FlagWriteResult> {
    const { key, value } = readFlagBody(body, pathKey);
    return this.set(actor, key, value, mode);
  }

  /** `core.flags.set` from another service, on behalf of `actor` (its wrapper endpoints checked the caller). */
  async setFromRequest(request: SetFlagRequest): Promise<FlagWriteResult> {
    const problems = [
      ...(typeof request.tenantId === 'string' && request.tenantId ? [] : [problem('tenantId', 'tenantId is required')]),
      ...(typeof request.actor === 'string' && request.actor ? [] : [problem('actor', 'actor (the user id) is required')]),
      ...(request.mode === 'create' || request.mode === 'update' ? [] : [problem('mode', 'mode must be "create" or "update"')]),
    ];
    if (problems.length > 0) throw Problems.badRequest('VALIDATION_FAILED', 'The flag request is invalid', problems);
    return this.set({ tenantId: request.tenantId, userId: request.actor }, request.key, request.value, request.mode);
  }

  private async set(actor: Actor, key: unknown, value: unknown, mode: FlagWriteMode): Promise<FlagWriteResult> {
    const validKey = typeof key === 'string' && CONFIG_KEY_PATTERN.test(key);
    const validValue = isFlagValue(value);
    if (!validKey || !validValue) {
      throw Problems.badRequest('VALIDATION_FAILED', 'The feature flag is invalid', [
        ...(validKey ? [] : [problem('key', `key must be ${CONFIG_KEY_RULE}`)]),
        ...(validValue ? [] : [problem('value', 'value must be "true" or "false"')]),
      ]);
    }
    const before = await this.flags.setValue(actor.tenantId, key, value, mode === 'create');
    if (before === null && mode === 'update') {
      throw Problems.notFound('FLAG_NOT_FOUND', `No feature flag "${key}"; create it with POST first`);
    }
    const flag = record(key, value);
    await this.audit.record(actor, {
      action: before === null ? 'create' : 'update',
      resource: FLAG_AUDIT_RESOURCE,
      resourceId: key,
      before: before === null ? undefined : record(key, before),
      after: flag,
    });
    await this.bus.publish('core.flags.changed', { tenantId: actor.tenantId, keys: [key] });
    return { flag, created: before === null };
  }
}
