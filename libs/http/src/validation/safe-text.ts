import { applyDecorators } from '@nestjs/common';
import { IsNotEmpty, IsString, MaxLength, ValidateBy, ValidationOptions } from 'class-validator';

export interface SafeTextOptions {
  /** Applies to each item of an array. */
  each?: boolean;
  /** Tab, line feed and carriage return are allowed (descriptions, expressions); other control characters never are. */
  multiline?: boolean;
  /** The empty string is allowed. */
  allowEmpty?: boolean;
}

/** Control characters (C0, DEL, C1) and the noncharacters (U+FFFE, U+FFFF, U+FDD0–U+FDEF, …). */
const UNSAFE = /[\p{Cc}\p{Noncharacter_Code_Point}]/u;
const UNSAFE_MULTILINE = /[^\P{Cc}\t\n\r]|\p{Noncharacter_Code_Point}/u;
/** A high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why `text` is not safe to store and show (`undefined` when it is). */
export function unsafeTextReason(text: string, multiline = false): string | undefined {
  if (LONE_SURROGATE.test(text)) return 'must be well-formed Unicode (no lone surrogate)';
  if ((multiline ? UNSAFE_MULTILINE : UNSAFE).test(text)) {
    return multiline
      ? 'must not contain control characters other than tab and line breaks, nor U+FFFE/U+FFFF'
      : 'must not contain control characters, nor U+FFFE/U+FFFF';
  }
  return undefined;
}

function SafeCharacters(multiline: boolean, options: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'safeText',
      constraints: [multiline],
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || unsafeTextReason(value, multiline) === undefined,
        defaultMessage: (args) =>
          `${args?.property ?? 'value'} ${unsafeTextReason(String(args?.value ?? ''), multiline) ?? 'is not safe text'}`,
      },
    },
    options,
  );
}

/**
 * The one rule for identifiers, names and any text a caller stores: a string of at most
 * `maxLength` characters, not empty (unless `allowEmpty`), well-formed UTF-16 (no lone
 * surrogate), without control characters (tab and line breaks only when `multiline`) or
 * noncharacters such as U+FFFF. NUL and friends would otherwise reach the database, file names,
 * object-store keys, logs and consoles.
 */
export const IsSafeText = (maxLength: number, options: SafeTextOptions = {}) => {
  const each = { each: options.each ?? false };
  return applyDecorators(
    IsString(each),
    ...(options.allowEmpty ? [] : [IsNotEmpty(each)]),
    MaxLength(maxLength, each),
    SafeCharacters(options.multiline ?? false, each),
  );
};
