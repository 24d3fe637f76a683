import { ProblemException } from '@lib/core';
import { ExpressionError } from './errors';

/** Kept out of errors.ts so that parsing and compiling do not load the HTTP library. */
export function toProblem(error: ExpressionError): ProblemException {
  return new ProblemException(400, 'INVALID_EXPRESSION', error.message, undefined, { position: error.position });
}
