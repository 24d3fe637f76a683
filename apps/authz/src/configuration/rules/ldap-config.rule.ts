import { isIPv6 } from 'node:net';
import type { FieldProblem } from '@lib/core';
import { isNonEmptyString, isPlainObject, problemAt } from './field-problem';

const LDAP_FIELDS = ['base', 'host', 'username', 'password', 'useSSL'];
const STRING_FIELDS = ['base', 'host', 'username', 'password'];
const MAX_FIELD_LENGTH = 1024;
// Labels as in RFC 1123, plus `_` (found in container and Windows host names).
const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*$/;
const HOST_AND_PORT = /^(\[[^\]]+\]|[^:[\]]+)(?::(\d{1,5}))?$/;

function isHostName(name: string): boolean {
  return name.startsWith('[') ? name.endsWith(']') && isIPv6(name.slice(1, -1)) : HOSTNAME.test(name);
}

function isPort(port: string): boolean {
  const n = Number(port);
  return Number.isInteger(n) && n >= 1 && n <= 65535;
}

function isLdapUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (
    (url.protocol === 'ldap:' || url.protocol === 'ldaps:') &&
    isHostName(url.hostname) &&
    !url.username &&
    !url.password &&
    (url.pathname === '' || url.pathname === '/') &&
    !url.search &&
    !url.hash
  );
}

/** `hostname[:port]` (name, IPv4 or bracketed IPv6) or a full `ldap://` / `ldaps://` URL without path or credentials. */
export function isLdapHost(host: string): boolean {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(host)) return isLdapUrl(host);
  const match = HOST_AND_PORT.exec(host);
  return !!match && isHostName(match[1]) && (match[2] === undefined || isPort(match[2]));
}

/**
 * `_ldap_config` (docs/interface.md#the-directory-entry-_ldap_config): exactly base, host, username,
 * password (non-empty strings) and useSSL (boolean).
 */
export function ldapConfigProblems(value: unknown): FieldProblem[] {
  if (!isPlainObject(value)) return [problemAt(undefined, 'must be an object with base, host, username, password and useSSL')];
  const problems: FieldProblem[] = Object.keys(value)
    .filter((field) => !LDAP_FIELDS.includes(field))
    .map((field) => problemAt(field, 'is not allowed (allowed: base, host, username, password, useSSL)'));
  for (const field of STRING_FIELDS) {
    const fieldValue = value[field];
    if (!isNonEmptyString(fieldValue)) problems.push(problemAt(field, 'must be a non-empty string'));
    else if (fieldValue.length > MAX_FIELD_LENGTH) problems.push(problemAt(field, `must be at most ${MAX_FIELD_LENGTH} characters`));
  }
  if (isNonEmptyString(value.host) && !isLdapHost(value.host)) {
    problems.push(problemAt('host', 'must be hostname[:port] or an ldap:// or ldaps:// URL without path or credentials'));
  }
  if (typeof value.useSSL !== 'boolean') problems.push(problemAt('useSSL', 'must be a boolean'));
  return problems;
}
