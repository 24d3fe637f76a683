import { ProblemException } from '@lib/core';

export const DataManagementProblems = {
  notFound: (id: string) => new ProblemException(404, 'DELETION_REQUEST_NOT_FOUND', `No deletion request "${id}"`),
  notCancellable: (status: string) =>
    new ProblemException(
      409,
      'DELETION_NOT_CANCELLABLE',
      `The deletion request is ${status}; only pending or running requests can be cancelled`,
    ),
  noFilter: () =>
    new ProblemException(
      400,
      'DELETION_FILTER_REQUIRED',
      'filters needs at least one of providerName, billingAccountIds, periodFrom, periodTo',
    ),
  periods: () => new ProblemException(400, 'DELETION_PERIODS_INVALID', 'periodFrom must not be after periodTo'),
  accountsRequired: () =>
    new ProblemException(
      400,
      'DELETION_ACCOUNTS_REQUIRED',
      'A caller whose visibility is limited names the billing accounts to delete from (filters.billingAccountIds)',
    ),
  outsideVisibility: (accounts: string[]) =>
    new ProblemException(
      403,
      'DELETION_OUTSIDE_VISIBILITY',
      `These billing accounts are not (or not wholly) within the caller's visibility: ${accounts.slice(0, 20).join(', ')}`,
      accounts
        .slice(0, 100)
        .map((account) => ({ field: 'filters.billingAccountIds', messages: [`${account} is outside the caller's visibility`] })),
    ),
};
