import { errors as joseErrors } from 'jose';
import { ProblemException } from '@lib/http/problem/problem';

const unauthorized = (code: string, detail: string) => new ProblemException(401, code, detail);

/** Maps a verification failure to the 401 (or 503 when the key set cannot be fetched) a caller sees. */
export function tokenProblem(error: unknown): ProblemException {
  if (error instanceof ProblemException) return error;
  if (error instanceof joseErrors.JWTExpired) return unauthorized('TOKEN_EXPIRED', 'The token has expired');
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === 'nbf' || error.claim === 'iat') return unauthorized('TOKEN_NOT_YET_VALID', 'The token is not valid yet');
    if (error.claim === 'iss') return unauthorized('TOKEN_ISSUER_INVALID', 'The token was not issued by this platform');
    return unauthorized('TOKEN_CLAIMS_INVALID', `The token's "${error.claim}" claim is missing or invalid`);
  }
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return unauthorized('TOKEN_ALGORITHM_REFUSED', 'The token algorithm is not accepted');
  if (error instanceof joseErrors.JWSSignatureVerificationFailed || error instanceof joseErrors.JWKSNoMatchingKey) {
    return unauthorized('TOKEN_SIGNATURE_INVALID', 'The token signature is invalid');
  }
  if (error instanceof joseErrors.JWKSTimeout || error instanceof joseErrors.JWKSInvalid || (error as Error)?.name === 'TypeError') {
    return new ProblemException(503, 'KEYS_UNAVAILABLE', 'The signing keys cannot be fetched; retry later');
  }
  return unauthorized('TOKEN_MALFORMED', 'The token is malformed');
}
