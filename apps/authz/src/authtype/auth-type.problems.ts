import { ProblemException } from '@lib/core';

/** Every problem the auth-type and IdP-mapping operations answer with (stable codes: docs/decisions.md#error-bodies). */
export const AuthTypeProblems = {
  configurationNotFound: () => new ProblemException(404, 'AUTHTYPE_NOT_FOUND', 'No such auth-type configuration'),
  nameTaken: () =>
    new ProblemException(
      409,
      'AUTHTYPE_NAME_TAKEN',
      'An auth-type configuration with this name already exists (names are case-insensitive)',
    ),
  internalExists: () =>
    new ProblemException(409, 'AUTHTYPE_INTERNAL_EXISTS', 'An internal auth-type configuration already exists; only one can be stored'),
  externalRefInUse: () => new ProblemException(409, 'EXTERNAL_REF_IN_USE', 'The external reference id is already associated with a team'),
  teamCodeTaken: () => new ProblemException(409, 'TEAM_CODE_TAKEN', 'The team code is already used by a team'),
  tokenGroupsMissing: () => new ProblemException(403, 'TOKEN_GROUPS_MISSING', "The caller's token carries no groups"),
  externalRefNotInTokenGroups: () =>
    new ProblemException(403, 'EXTERNAL_REF_NOT_IN_TOKEN_GROUPS', "The new external reference id is not one of the caller's token groups"),
  noSystemAdminTeamForGroups: () =>
    new ProblemException(
      403,
      'NO_SYSTEM_ADMIN_TEAM_FOR_GROUPS',
      "None of the caller's token groups is the external reference of a team holding System Admin",
    ),
  mappingNotFound: () => new ProblemException(404, 'IDP_MAPPING_NOT_FOUND', 'The IdP has no auth-type mapping'),
  idpAlreadyMapped: () => new ProblemException(409, 'IDP_ALREADY_MAPPED', 'The IdP is already mapped to an auth-type configuration'),
  authTypeAlreadyMapped: () =>
    new ProblemException(409, 'AUTHTYPE_ALREADY_MAPPED', 'The auth-type configuration is already mapped to an IdP'),
  internalMappingUndeletable: () =>
    new ProblemException(409, 'INTERNAL_MAPPING_UNDELETABLE', 'The mapping to the internal configuration cannot be deleted'),
  lastMappingUndeletable: () =>
    new ProblemException(409, 'LAST_MAPPING_UNDELETABLE', 'The last IdP mapping of the tenant cannot be deleted'),
  mappingChangedConcurrently: () =>
    new ProblemException(409, 'MAPPING_CHANGED_CONCURRENTLY', 'The mapping was changed by another request; read it again and retry'),
  invalidForAuthType: (field: string, message: string) =>
    new ProblemException(400, 'VALIDATION_FAILED', 'The request is invalid', [{ field, messages: [message] }]),
};
