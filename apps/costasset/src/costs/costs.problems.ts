import { ProblemException } from '@lib/core';

export const CostsProblems = {
  range: (detail: string) => new ProblemException(400, 'COSTS_RANGE_INVALID', detail),
  invalid: (field: string, message: string) =>
    new ProblemException(400, 'VALIDATION_FAILED', 'The request is invalid', [{ field, messages: [message] }]),
};
