import { ProblemException } from '@lib/core';
import type { Principal } from './principal';

/** A supplied or path `idp_id` must be the IdP of the caller's token (docs/interface.md#idp-mappings). */
export function assertCallerIdp(principal: Principal, idpId: string): void {
  if (principal.idpId !== idpId) {
    throw new ProblemException(403, 'IDP_MISMATCH', "The IdP does not match the IdP of the caller's token");
  }
}
