/**
 * The external directory (LDAP) of a tenant, as the rest of authz sees it. The implementation
 * reads the tenant's `_ldap_config` entry and queries the directory with ldapts.
 */
export abstract class Directory {
  /**
   * The groups (cn values) the user belongs to: groups with `member=<user DN>` or
   * `memberUid=<user id>` under the configured base. An unknown user has no groups.
   * Throws ProblemException 503 `DIRECTORY_UNAVAILABLE` when the directory cannot be reached
   * or refuses the configured credentials, and 404 `DIRECTORY_NOT_CONFIGURED` when the tenant
   * has no `_ldap_config`.
   */
  abstract groupsOf(tenantId: string, userId: string): Promise<string[]>;
}
