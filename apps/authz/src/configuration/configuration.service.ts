import { Injectable } from '@nestjs/common';
import type { Principal } from '@lib/auth';
import { FieldProblem, ProblemException, Problems } from '@lib/core';
import { MessageBus } from '@lib/messaging';
import { AuditService } from '../audit/audit.service';
import type { LdapSettings } from '../directory/ldap-settings';
import { CONFIG_KEY_PATTERN, ConfigKeys, type ConfigValue, type StoredLdapConfig } from './config-keys';
import { ConfigEntryRepository } from './config-entry.repository';
import { LdapConfigVault } from './ldap-config.vault';
import { configValueProblems } from './rules/config-value.rules';
import { defaultCurrencyConsistencyProblems } from './rules/currency.rules';
import { isNonEmptyString } from './rules/field-problem';

export interface ConfigEntryView {
  configurationkey: string;
  configurationvalue: ConfigValue;
}

type Actor = Pick<Principal, 'tenantId' | 'userId'>;
type Reader = Pick<Principal, 'tenantId' | 'isSystemAdmin'>;

export const CONFIG_AUDIT_RESOURCE = 'configvalue';

const invalid = (key: string, problems: FieldProblem[]) =>
  Problems.badRequest('VALIDATION_FAILED', `The value of ${key} is invalid`, problems);

/** Core configuration values of a tenant: per-key rules, the sealed `_ldap_config` password, audit and change events. */
@Injectable()
export class ConfigurationService {
  constructor(
    private readonly entries: ConfigEntryRepository,
    private readonly ldap: LdapConfigVault,
    private readonly audit: AuditService,
    private readonly bus: MessageBus,
  ) {}

  async put(actor: Actor, key: string, value: unknown): Promise<ConfigEntryView> {
    const { tenantId } = actor;
    const problems = configValueProblems(key, value);
    if (problems.length === 0) problems.push(...(await this.acrossKeysProblems(tenantId, key, value)));
    if (problems.length > 0) throw invalid(key, problems);
    const stored = key === ConfigKeys.LDAP ? await this.sealLdapConfig(tenantId, value as LdapSettings) : (value as ConfigValue);
    const before = await this.entries.upsertValue(tenantId, key, stored);
    const after = this.view(key, stored);
    await this.audit.record(actor, {
      action: before === null ? 'create' : 'update',
      resource: CONFIG_AUDIT_RESOURCE,
      resourceId: key,
      before: before === null ? undefined : this.view(key, before),
      after,
    });
    await this.bus.publish('core.config.changed', { tenantId, keys: [key] });
    return after;
  }

  async get(reader: Reader, key: string): Promise<ConfigEntryView> {
    if (key === ConfigKeys.LDAP && !reader.isSystemAdmin) {
      throw new ProblemException(403, 'SYSTEM_ADMIN_REQUIRED', `Only a System Admin may read ${ConfigKeys.LDAP}`);
    }
    const value = await this.entries.findValue(reader.tenantId, key);
    if (value === null) throw Problems.notFound('CONFIG_NOT_FOUND', `No configuration value is stored under "${key}"`);
    return this.view(key, value);
  }

  /** Every value of the tenant by key; `_ldap_config` only for a System Admin. */
  async list(reader: Reader): Promise<ConfigEntryView[]> {
    const filter = reader.isSystemAdmin ? {} : { key: { $ne: ConfigKeys.LDAP } };
    const entries = await this.entries.find(reader.tenantId, filter, { sort: { key: 1 } });
    return entries.map((entry) => this.view(entry.key, entry.value));
  }

  /** For the other services (NATS `core.config.get`): null when missing, secrets masked. */
  async lookup(tenantId: unknown, key: unknown): Promise<{ key: string; value: ConfigValue | null }> {
    if (!isNonEmptyString(tenantId)) throw Problems.badRequest('VALIDATION_FAILED', 'tenantId is required');
    if (typeof key !== 'string' || !CONFIG_KEY_PATTERN.test(key))
      throw Problems.badRequest('VALIDATION_FAILED', 'key is not a valid configuration key');
    const value = await this.entries.findValue(tenantId, key);
    return { key, value: value === null ? null : this.view(key, value).configurationvalue };
  }

  /** The tenant's directory settings with the password decrypted (for the directory client only). */
  async ldapSettings(tenantId: string): Promise<LdapSettings | null> {
    const stored = (await this.entries.findValue(tenantId, ConfigKeys.LDAP)) as StoredLdapConfig | null;
    return stored ? this.ldap.open(tenantId, stored) : null;
  }

  private view(key: string, value: ConfigValue): ConfigEntryView {
    const shown = key === ConfigKeys.LDAP ? this.ldap.mask(value as StoredLdapConfig) : value;
    return { configurationkey: key, configurationvalue: shown };
  }

  private async sealLdapConfig(tenantId: string, input: LdapSettings): Promise<ConfigValue> {
    const stored = (await this.entries.findValue(tenantId, ConfigKeys.LDAP)) as StoredLdapConfig | null;
    return this.ldap.seal(tenantId, input, stored);
  }

  /** DEFAULT_CURRENCY must stay one of INSTANCE_CURRENCIES, whichever of the two is written. */
  private async acrossKeysProblems(tenantId: string, key: string, value: unknown): Promise<FieldProblem[]> {
    if (key === ConfigKeys.DEFAULT_CURRENCY) {
      return defaultCurrencyConsistencyProblems(value, await this.entries.findValue(tenantId, ConfigKeys.INSTANCE_CURRENCIES));
    }
    if (key === ConfigKeys.INSTANCE_CURRENCIES) {
      return defaultCurrencyConsistencyProblems(await this.entries.findValue(tenantId, ConfigKeys.DEFAULT_CURRENCY), value);
    }
    return [];
  }
}
