import { Injectable, Logger } from '@nestjs/common';
import { SealedSecretError, SecretSealer } from '@lib/config';
import { ProblemException, Problems } from '@lib/core';
import { MASK } from '../audit/mask-secrets';
import type { LdapSettings } from '../directory/ldap-settings';
import { ConfigKeys, type StoredLdapConfig } from './config-keys';
import { problemAt } from './rules/field-problem';

const contextOf = (tenantId: string) => `${tenantId}/${ConfigKeys.LDAP}/password`;

/** Seals, masks and opens the password of `_ldap_config`; the clear password exists only in memory. */
@Injectable()
export class LdapConfigVault {
  private readonly logger = new Logger('LdapConfigVault');

  constructor(private readonly cipher: SecretSealer) {}

  /** The record to store for a validated input. A password of `********` keeps the stored (sealed) one. */
  seal(tenantId: string, input: LdapSettings, stored: StoredLdapConfig | null): StoredLdapConfig {
    let password: string;
    if (input.password !== MASK) password = this.cipher.seal(input.password, contextOf(tenantId));
    else if (stored) password = stored.password;
    else {
      throw Problems.badRequest('VALIDATION_FAILED', `The value of ${ConfigKeys.LDAP} is invalid`, [
        problemAt('password', `no password is stored yet: send the password itself, not ${MASK}`),
      ]);
    }
    return { base: input.base, host: input.host, username: input.username, password, useSSL: input.useSSL };
  }

  mask(stored: StoredLdapConfig): StoredLdapConfig {
    return { base: stored.base, host: stored.host, username: stored.username, password: MASK, useSSL: stored.useSSL };
  }

  open(tenantId: string, stored: StoredLdapConfig): LdapSettings {
    try {
      return { ...this.mask(stored), password: this.cipher.open(stored.password, contextOf(tenantId)) };
    } catch (error) {
      if (!(error instanceof SealedSecretError)) throw error;
      this.logger.error({ tenantId }, `the stored ${ConfigKeys.LDAP} password cannot be decrypted: was CONFIG_ENCRYPTION_KEY changed?`);
      throw new ProblemException(
        500,
        'CONFIG_SECRET_UNREADABLE',
        `The stored directory password cannot be decrypted; a System Admin must store ${ConfigKeys.LDAP} again`,
      );
    }
  }
}
