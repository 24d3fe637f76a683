import { ProblemException } from '@lib/core';

export const MigrationProblems = {
  hostNotAllowed: (host: string) =>
    new ProblemException(
      400,
      'MIGRATION_HOST_NOT_ALLOWED',
      `legacyURL host ${host} is or resolves to a private, loopback, link-local or unspecified address`,
    ),
  invalidUrl: (why: string) => new ProblemException(400, 'MIGRATION_URL_INVALID', `legacyURL ${why}`),
};
