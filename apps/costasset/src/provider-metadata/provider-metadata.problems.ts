import { ProblemException } from '@lib/core';

export const MAX_ITEMS_PER_POST = 1000;

/** Every problem the provider-metadata operations answer with. */
export const ProviderMetadataProblems = {
  /** The interface answers "record not found" with 401; existing clients depend on it (docs/decisions.md#statuses). */
  notFound: (what: string) => new ProblemException(401, 'PROVIDER_METADATA_NOT_FOUND', `No ${what} matches the request`),
  providerNameMismatch: (indexes: number[]) =>
    new ProblemException(
      400,
      'PROVIDER_NAME_MISMATCH',
      'Every item must carry the providerName of the query',
      indexes.map((index) => ({
        field: `[${index}].providerName`,
        messages: ['providerName must equal the providerName query parameter'],
      })),
    ),
  duplicateItems: (indexes: number[], key: string) =>
    new ProblemException(
      400,
      'DUPLICATE_MAPPING_IN_BODY',
      `The body holds the same ${key} more than once`,
      indexes.map((index) => ({ field: `[${index}]`, messages: [`repeats the ${key} of an earlier item`] })),
    ),
  selectorRequired: () =>
    new ProblemException(400, 'SELECTOR_REQUIRED', 'Give assetType, fromServiceCategory or both to select the mappings to change', [
      { field: 'assetType', messages: ['assetType or fromServiceCategory is required'] },
    ]),
  nothingToUpdate: () =>
    new ProblemException(400, 'NOTHING_TO_UPDATE', 'Give at least one of dataCenter, url, region, subregion, location, state, country'),
};
