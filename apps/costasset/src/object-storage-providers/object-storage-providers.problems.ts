import { ProblemException } from '@lib/core';

export const ObjectStorageProviderProblems = {
  codeTaken: (code: string) =>
    new ProblemException(409, 'PROVIDER_CODE_TAKEN', `An object-storage provider with code "${code}" already exists`),
  notFound: () => new ProblemException(404, 'PROVIDER_NOT_FOUND', 'No object-storage provider has this code'),
};
