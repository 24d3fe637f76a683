import { ProblemException } from '@lib/http/problem/problem';
import type { Principal } from './principal';

/** Spec §5: a supplied or path `idp_id` must be the IdP of the caller's token. */
export function assertCallerIdp(principal: Principal, idpId: string): void {
  if (principal.idpId !== idpId) {
    throw new ProblemException(403, 'IDP_MISMATCH', "The IdP does not match the IdP of the caller's token");
  }
}
