import { FieldProblem, ProblemException, Problems } from '@lib/core';
import { isFlagValue, type FlagValue } from './flag-values';

/**
 * Both flag body shapes (docs/interface.md#configuration-values-and-feature-flags), every field
 * optional so that one rule can pick the shape.
 */
export interface FlagBody {
  flag_key?: string;
  flag_value?: string;
  configurationkey?: string;
  configurationvalue?: string;
}

export interface FlagWrite {
  key: string;
  value: FlagValue;
}

const present = (value: unknown) => value !== undefined && value !== null;
const required = (field: string): FieldProblem => ({ field, messages: [`${field} is required`] });

/**
 * Reads a flag from exactly one of the shapes `{ flag_key, flag_value }` and
 * `{ configurationkey, configurationvalue }`. With `pathKey` (PUT) the key may be omitted and must
 * otherwise equal it.
 */
export function readFlagBody(body: FlagBody, pathKey?: string): FlagWrite {
  const flagShape = present(body.flag_key) || present(body.flag_value);
  const configShape = present(body.configurationkey) || present(body.configurationvalue);
  if (flagShape && configShape) {
    const mixed = (['flag_key', 'flag_value', 'configurationkey', 'configurationvalue'] as const).filter((field) => present(body[field]));
    throw Problems.badRequest(
      'VALIDATION_FAILED',
      'Send either flag_key/flag_value or configurationkey/configurationvalue, not both',
      mixed.map((field) => ({ field, messages: ['cannot be combined with the other body shape'] })),
    );
  }
  const [keyField, valueField] = flagShape ? (['flag_key', 'flag_value'] as const) : (['configurationkey', 'configurationvalue'] as const);
  const key = body[keyField] ?? undefined;
  const value = body[valueField] ?? undefined;
  const problems = [
    ...(key === undefined && pathKey === undefined ? [required(keyField)] : []),
    ...(value === undefined ? [required(valueField)] : []),
  ];
  if (problems.length > 0) throw Problems.badRequest('VALIDATION_FAILED', 'The feature flag is incomplete', problems);
  if (!isFlagValue(value)) {
    throw Problems.badRequest('VALIDATION_FAILED', 'The feature flag is invalid', [
      { field: valueField, messages: [`${valueField} must be "true" or "false"`] },
    ]);
  }
  if (pathKey !== undefined && key !== undefined && key !== pathKey) {
    throw new ProblemException(400, 'FLAG_KEY_MISMATCH', `The body names flag "${key}" but the path names "${pathKey}"`);
  }
  return { key: (key ?? pathKey) as string, value };
}
