/** The `host` setting could not be turned into an LDAP URL. The message never holds credentials. */
export class InvalidLdapHostError extends Error {
  constructor(readonly reason: string) {
    super(`The directory host setting is invalid: ${reason}`);
    this.name = 'InvalidLdapHostError';
  }
}

const SCHEME = /^(ldaps?):\/\//i;

/**
 * docs/interface.md#the-directory-entry-_ldap_config: `host` is `hostname[:port]` (port 389, or 636 with `useSSL`) or a full `ldap://` /
 * `ldaps://` URL. The result carries protocol, host and port only; user info, paths, queries and
 * other schemes are refused, so that nothing but an address reaches the client.
 */
export function ldapUrl(host: string, useSSL: boolean): string {
  const trimmed = (host ?? '').trim();
  if (!trimmed) throw new InvalidLdapHostError('it is empty');
  const explicit = SCHEME.exec(trimmed);
  if (!explicit && /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed)) throw new InvalidLdapHostError('only ldap:// and ldaps:// URLs are supported');
  const scheme = explicit ? explicit[1].toLowerCase() : useSSL ? 'ldaps' : 'ldap';
  const rest = explicit ? trimmed.slice(explicit[0].length) : trimmed;

  let parsed: URL;
  try {
    // Parsed as http(s) so that the WHATWG host rules (IPv6 brackets, ports 0-65535) apply.
    parsed = new URL(`http://${rest}`);
  } catch {
    throw new InvalidLdapHostError('it is not a host name with an optional port');
  }
  if (parsed.username || parsed.password) throw new InvalidLdapHostError('credentials belong in username and password, not in the host');
  if ((parsed.pathname && parsed.pathname !== '/') || parsed.search || parsed.hash || /[/?#]./.test(rest)) {
    throw new InvalidLdapHostError('it must not hold a path, a query or a fragment');
  }
  if (!parsed.hostname) throw new InvalidLdapHostError('it names no host');
  const explicitPort = /:(\d+)\/?$/.exec(rest)?.[1];
  const port = explicitPort !== undefined ? Number(explicitPort) : scheme === 'ldaps' ? 636 : 389;
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new InvalidLdapHostError('the port is out of range');
  return `${scheme}://${parsed.hostname}:${port}`;
}
