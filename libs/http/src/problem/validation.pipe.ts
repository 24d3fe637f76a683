import { ValidationError, ValidationPipe } from '@nestjs/common';
import { FieldProblem, ProblemException } from '@lib/core';

function flatten(errors: ValidationError[], parent = ''): FieldProblem[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = error.constraints ? [{ field, messages: Object.values(error.constraints) }] : [];
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

/** Every body and query is validated: unknown fields are refused, types converted, problems listed per field. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => new ProblemException(400, 'VALIDATION_FAILED', 'The request is invalid', flatten(errors)),
  });
}
