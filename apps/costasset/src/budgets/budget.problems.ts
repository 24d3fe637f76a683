import { ProblemException } from '@lib/core';

export const BudgetProblems = {
  notFound: (id: string) => new ProblemException(404, 'BUDGET_NOT_FOUND', `No budget "${id}"`),
  nameTaken: (name: string) => new ProblemException(409, 'BUDGET_NAME_TAKEN', `A budget named "${name}" already exists`),
  scope: () => new ProblemException(400, 'BUDGET_SCOPE_INVALID', 'scope needs exactly one of expr or groupId'),
  periods: () =>
    new ProblemException(400, 'BUDGET_PERIODS_INVALID', 'endPeriod must not be before startPeriod, and a budget spans at most 120 periods'),
  noRate: (currency: string, corporate: string) =>
    new ProblemException(
      400,
      'CURRENCY_RATE_MISSING',
      `No exchange rate from ${currency} to the corporate currency ${corporate} (CURRENCY_EXCHANGE_RATES)`,
    ),
};
