import type { FieldProblem } from '@lib/core';
import { ConfigKeys } from '../config-keys';
import { defaultCurrencyProblems, exchangeRatesProblems, instanceCurrenciesProblems } from './currency.rules';
import { genericValueProblems } from './generic-value.rule';
import { ldapConfigProblems } from './ldap-config.rule';
import { providerListProblems } from './provider-list.rule';

type ValueRule = (value: unknown) => FieldProblem[];

const RULES: Record<string, ValueRule> = {
  [ConfigKeys.LDAP]: ldapConfigProblems,
  [ConfigKeys.SUPPORTED_CD_PROVIDERS]: providerListProblems,
  [ConfigKeys.COMPLETE_ENRICHMENT_COLLECTOR_PROVIDERS]: providerListProblems,
  [ConfigKeys.INSTANCE_CURRENCIES]: instanceCurrenciesProblems,
  [ConfigKeys.DEFAULT_CURRENCY]: defaultCurrencyProblems,
  [ConfigKeys.CURRENCY_EXCHANGE_RATES]: exchangeRatesProblems,
};

/** The problems of a value for its key, on its own (rules spanning several keys live in the service). */
export function configValueProblems(key: string, value: unknown): FieldProblem[] {
  return (RULES[key] ?? genericValueProblems)(value);
}
