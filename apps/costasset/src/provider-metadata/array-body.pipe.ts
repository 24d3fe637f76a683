import { PipeTransform, Type } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate, ValidationError } from 'class-validator';
import { FieldProblem, ProblemException } from '@lib/core';

const MAX_LISTED_PROBLEMS = 100;

function flatten(errors: ValidationError[], parent: string): FieldProblem[] {
  return errors.flatMap((error) => {
    const field = `${parent}.${error.property}`;
    const own = error.constraints ? [{ field, messages: Object.values(error.constraints) }] : [];
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

function invalid(errors: FieldProblem[]): ProblemException {
  return new ProblemException(400, 'VALIDATION_FAILED', 'The request is invalid', errors.slice(0, MAX_LISTED_PROBLEMS));
}

/**
 * Validates a JSON array body item by item with the rules of the global pipe (unknown fields
 * refused, values trimmed). The global ValidationPipe skips array bodies, and ParseArrayPipe
 * neither bounds the length nor answers problems per field (`[3].assetType`).
 */
export class ArrayBodyPipe<T extends object> implements PipeTransform<unknown, Promise<T[]>> {
  constructor(
    private readonly itemType: Type<T>,
    private readonly maxItems: number,
  ) {}

  async transform(value: unknown): Promise<T[]> {
    if (!Array.isArray(value)) throw invalid([{ field: 'body', messages: ['body must be a JSON array'] }]);
    if (value.length === 0 || value.length > this.maxItems) {
      throw invalid([{ field: 'body', messages: [`body must hold between 1 and ${this.maxItems} items`] }]);
    }
    const items: T[] = [];
    const problems: FieldProblem[] = [];
    for (const [index, raw] of value.entries()) {
      if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
        problems.push({ field: `[${index}]`, messages: ['each item must be an object'] });
        continue;
      }
      const item = plainToInstance(this.itemType, raw as object);
      const errors = await validate(item, {
        whitelist: true,
        forbidNonWhitelisted: true,
        forbidUnknownValues: true,
        validationError: { target: false, value: false },
      });
      problems.push(...flatten(errors, `[${index}]`));
      items.push(item);
    }
    if (problems.length > 0) throw invalid(problems);
    return items;
  }
}
