import 'reflect-metadata';
import { plainToInstance, ClassConstructor } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';

export class EnvironmentError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid environment:\n  - ${problems.join('\n  - ')}`);
    this.name = 'EnvironmentError';
  }
}

function describe(errors: ValidationError[]): string[] {
  return errors.flatMap((error) => Object.values(error.constraints ?? {}).map((message) => `${error.property}: ${message}`));
}

/**
 * Parses the environment once into a validated, typed object. Unknown variables are ignored;
 * a missing or malformed one fails start-up with one line per problem (values are never echoed,
 * since some of them are secrets).
 */
export function loadEnvironment<T extends object>(schema: ClassConstructor<T>, source: NodeJS.ProcessEnv = process.env): T {
  const candidate = plainToInstance(schema, { ...source }, { enableImplicitConversion: true });
  const errors = validateSync(candidate, { whitelist: false, forbidUnknownValues: false });
  if (errors.length > 0) throw new EnvironmentError(describe(errors));
  return candidate;
}
