import { Transform } from 'class-transformer';
import { registerDecorator, ValidationArguments, ValidationOptions } from 'class-validator';
import type { AuthType } from '@lib/auth';

/** Trims surrounding white space of a string value (other types are left for the validators to refuse). */
export const Trim = () => Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value));

/** The property may only be present when the body's `auth_type` is the given one. */
export function OnlyForAuthType(authType: AuthType, options?: ValidationOptions) {
  return (object: object, propertyName: string) =>
    registerDecorator({
      name: 'onlyForAuthType',
      target: object.constructor,
      propertyName,
      constraints: [authType],
      options: { message: `${propertyName} is only allowed when auth_type is ${authType}`, ...options },
      validator: {
        validate: (value: unknown, args: ValidationArguments) =>
          value === undefined || (args.object as { auth_type?: unknown }).auth_type === authType,
      },
    });
}
