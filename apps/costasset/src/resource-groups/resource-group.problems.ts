import { ProblemException } from '@lib/core';

export const ResourceGroupProblems = {
  notFound: (id: string) => new ProblemException(404, 'RESOURCE_GROUP_NOT_FOUND', `No resource group "${id}"`),
  exists: (id: string) => new ProblemException(409, 'RESOURCE_GROUP_EXISTS', `A resource group "${id}" already exists`),
  versionConflict: (id: string, stored: number) =>
    new ProblemException(409, 'VERSION_CONFLICT', `Resource group "${id}" was changed meanwhile; its version is now ${stored}`),
  placeholders: () =>
    new ProblemException(400, 'INVALID_EXPRESSION', 'Placeholders (${...}) are not allowed in resource group expressions', undefined, {
      position: 0,
    }),
};
