import { Logger } from '@nestjs/common';
import { Client, Entry } from 'ldapts';
import { ProblemException } from '@lib/core';
import { Directory } from './directory';
import { groupsFilter, userFilter } from './ldap-filters';
import { InvalidLdapHostError, ldapUrl } from './ldap-url';
import { LdapSettings, LdapSettingsSource } from './ldap-settings';

export interface LdapTimeouts {
  /** TCP (and TLS) connection set-up. */
  connectMs: number;
  /** Each LDAP operation (bind, search). */
  operationMs: number;
}

export const DEFAULT_LDAP_TIMEOUTS: LdapTimeouts = { connectMs: 3_000, operationMs: 5_000 };

const LDAP_INVALID_CREDENTIALS = 49;

export const DirectoryProblems = {
  notConfigured: () => new ProblemException(404, 'DIRECTORY_NOT_CONFIGURED', 'No directory (_ldap_config) is configured for this tenant'),
  unavailable: (reason: string) =>
    new ProblemException(503, 'DIRECTORY_UNAVAILABLE', `The directory is unavailable (${reason}); retry later`),
  credentialsRejected: () =>
    new ProblemException(
      503,
      'DIRECTORY_CREDENTIALS_REJECTED',
      'The directory rejected the configured bind credentials; update _ldap_config',
    ),
};

/**
 * The `Directory` port over LDAP (ldapts). One short-lived connection per look-up: bind with the
 * tenant's service account, find the user by `(uid=...)` under `base`, then its groups by
 * `member=<user DN>` or `memberUid=<user id>`, and always unbind. The password never appears in a
 * problem or a log line: failures are described by their kind only.
 */
export class LdapDirectory extends Directory {
  private readonly logger = new Logger('Directory');

  constructor(
    private readonly settingsSource: LdapSettingsSource,
    private readonly timeouts: LdapTimeouts = DEFAULT_LDAP_TIMEOUTS,
  ) {
    super();
  }

  async groupsOf(tenantId: string, userId: string): Promise<string[]> {
    const settings = await this.settingsSource.forTenant(tenantId);
    if (!settings) throw DirectoryProblems.notConfigured();
    let url: string;
    try {
      url = ldapUrl(settings.host, settings.useSSL);
    } catch (error) {
      if (error instanceof InvalidLdapHostError) throw DirectoryProblems.unavailable(`the host setting is invalid: ${error.reason}`);
      throw error;
    }
    const client = new Client({
      url,
      connectTimeout: this.timeouts.connectMs,
      timeout: this.timeouts.operationMs,
      // ldapts speaks TLS whenever tlsOptions are given, so only ldaps:// gets them.
      ...(url.startsWith('ldaps:') ? { tlsOptions: { minVersion: 'TLSv1.2' as const } } : {}),
    });
    try {
      return await this.search(client, settings, userId);
    } catch (error) {
      throw this.translate(error, tenantId);
    } finally {
      await client.unbind().catch(() => undefined);
    }
  }

  private async search(client: Client, settings: LdapSettings, userId: string): Promise<string[]> {
    await client.bind(settings.username, settings.password);
    const users = await client.search(settings.base, { scope: 'sub', filter: userFilter(userId), attributes: ['uid'] });
    if (users.searchEntries.length === 0) return [];
    const dns = users.searchEntries.map((entry) => entry.dn);
    const groups = await client.search(settings.base, { scope: 'sub', filter: groupsFilter(dns, userId), attributes: ['cn'] });
    return [...new Set(groups.searchEntries.flatMap(cnValues))].sort();
  }

  private translate(error: unknown, tenantId: string): ProblemException {
    if (error instanceof ProblemException) return error;
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'number') {
      this.logger.warn({ tenantId, ldapResultCode: code }, 'directory refused an operation');
      if (code === LDAP_INVALID_CREDENTIALS) return DirectoryProblems.credentialsRejected();
      return DirectoryProblems.unavailable(`LDAP result code ${code}`);
    }
    const reason = describeConnectionFailure(error);
    this.logger.warn({ tenantId, reason }, 'directory unreachable');
    return DirectoryProblems.unavailable(reason);
  }
}

function cnValues(entry: Entry): string[] {
  const value = entry.cn;
  const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return values.map((v) => (Buffer.isBuffer(v) ? v.toString('utf8') : String(v))).filter((v) => v.length > 0);
}

/** A short, secret-free reason for a network-level failure. */
export function describeConnectionFailure(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const message = (error as { message?: unknown }).message;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'connection reset';
    case 'ETIMEDOUT':
      return 'timed out';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
  }
  if (typeof message === 'string' && /timeout|timed out/i.test(message)) return 'timed out';
  if (typeof code === 'string' && /^ERR_TLS|CERT|SSL/i.test(code)) return 'TLS handshake failed';
  return 'connection failed';
}
