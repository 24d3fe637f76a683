import { errors as joseErrors } from 'jose';
import { ProblemException } from '@lib/core';
import { KeysUnavailableError, UnknownSigningKeyError } from './jwks-key-set';

const unauthorized = (code: string, detail: string) => new ProblemException(401, code, detail);

/**
 * Maps a verification failure to the 401 a caller sees, or to 503 when the key set cannot be
 * fetched. Anything else is not a token problem (a bug, say) and is rethrown as it is, so that it
 * is answered and logged as unexpected instead of passing for a bad token or an outage.
 */
export function tokenProblem(error: unknown): ProblemException {
  if (error instanceof ProblemException) return error;
  if (error instanceof KeysUnavailableError)
    return new ProblemException(503, 'KEYS_UNAVAILABLE', 'The signing keys cannot be fetched; retry later');
  if (error instanceof UnknownSigningKeyError || error instanceof joseErrors.JWKSNoMatchingKey) {
    return unauthorized(
      'TOKEN_KEY_UNKNOWN',
      'The token was signed by a key this platform does not publish: ' +
        'it was issued by another deployment, or by a signing key authz no longer uses',
    );
  }
  if (error instanceof joseErrors.JWTExpired) return unauthorized('TOKEN_EXPIRED', 'The token has expired');
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === 'nbf' || error.claim === 'iat') return unauthorized('TOKEN_NOT_YET_VALID', 'The token is not valid yet');
    if (error.claim === 'iss') return unauthorized('TOKEN_ISSUER_INVALID', 'The token was not issued by this platform');
    return unauthorized('TOKEN_CLAIMS_INVALID', `The token's "${error.claim}" claim is missing or invalid`);
  }
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return unauthorized('TOKEN_ALGORITHM_REFUSED', 'The token algorithm is not accepted');
  if (error instanceof joseErrors.JWSSignatureVerificationFailed || error instanceof joseErrors.JWKSMultipleMatchingKeys) {
    return unauthorized('TOKEN_SIGNATURE_INVALID', 'The token signature is invalid');
  }
  if (error instanceof joseErrors.JOSEError) return unauthorized('TOKEN_MALFORMED', 'The token is malformed');
  throw error;
}
