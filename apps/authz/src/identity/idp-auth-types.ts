import type { AuthType } from '@lib/auth';

/** The auth type an IdP has now: its mapped configuration's, or `internal` when unmapped. */
export interface ResolvedAuthType {
  authType: AuthType;
  authTypeId?: string;
}

/**
 * Where identity learns an IdP's auth type when it resolves a principal. The authtype folder
 * provides it (AuthTypeResolver, exported by the global AuthTypeModule): authtype depends on
 * identity, never the other way round.
 */
export abstract class IdpAuthTypes {
  abstract forIdp(tenantId: string, idpId: string): Promise<ResolvedAuthType>;
}
