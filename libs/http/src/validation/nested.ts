import { applyDecorators } from '@nestjs/common';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsDefined, IsObject, IsOptional, ValidateNested } from 'class-validator';

type ClassOf = () => new (...args: never[]) => object;

/**
 * A required nested object. `@ValidateNested` alone lets a missing value through (class-validator
 * skips `undefined`), and arrays pass as "objects"; this refuses both.
 */
export const RequiredNested = (type: ClassOf) => applyDecorators(IsDefined(), IsObject(), ValidateNested(), Type(type));

/** An optional nested object: absent is fine, anything else must be an object of `type`. */
export const OptionalNested = (type: ClassOf) => applyDecorators(IsOptional(), IsObject(), ValidateNested(), Type(type));

/** A required array of nested objects, with its bounds. */
export const RequiredNestedArray = (type: ClassOf, bounds: { minItems?: number; maxItems: number }) =>
  applyDecorators(
    IsDefined(),
    IsArray(),
    ...(bounds.minItems ? [ArrayMinSize(bounds.minItems)] : []),
    ArrayMaxSize(bounds.maxItems),
    IsObject({ each: true }),
    ValidateNested({ each: true }),
    Type(type),
  );
