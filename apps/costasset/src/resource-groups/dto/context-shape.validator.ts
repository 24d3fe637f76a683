import { ValidatorConstraint, ValidatorConstraintInterface } from 'class-validator';
import { unsafeTextReason } from '@lib/http';

const MAX_KEYS = 32;
const MAX_VALUES = 500;

/** `context`: at most 32 keys, each an array of at most 500 non-empty safe strings of ≤ 128 characters. */
@ValidatorConstraint({ name: 'contextShape' })
export class ContextShape implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
    const entries = Object.entries(value as Record<string, unknown>);
    return (
      entries.length <= MAX_KEYS &&
      entries.every(
        ([key, list]) =>
          /^[A-Za-z0-9_.-]{1,64}$/.test(key) &&
          Array.isArray(list) &&
          list.length <= MAX_VALUES &&
          list.every((item) => typeof item === 'string' && item.length > 0 && item.length <= 128 && unsafeTextReason(item) === undefined),
      )
    );
  }

  defaultMessage(): string {
    return 'context must map up to 32 keys to arrays of up to 500 non-empty strings of up to 128 characters, without control characters';
  }
}
