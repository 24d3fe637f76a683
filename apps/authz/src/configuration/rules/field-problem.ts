import type { FieldProblem } from '@lib/core';

/** The body field every value rule reports under. */
export const VALUE_FIELD = 'configurationvalue';

export const problemAt = (path: string | number | undefined, message: string): FieldProblem => ({
  field: path === undefined ? VALUE_FIELD : `${VALUE_FIELD}.${path}`,
  messages: [message],
});

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const isNonEmptyString = (value: unknown): value is string => typeof value === 'string' && value.trim().length > 0;
