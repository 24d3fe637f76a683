import { ProblemException } from '@lib/core';

export const AnomalyProblems = {
  notFound: (id: string) => new ProblemException(404, 'ANOMALY_NOT_FOUND', `No anomaly "${id}"`),
  range: (detail: string) =>
    new ProblemException(400, 'VALIDATION_FAILED', 'The request is invalid', [{ field: 'to', messages: [detail] }]),
};
