import { applyDecorators } from '@nestjs/common';
import { IsNotEmpty, IsString, Matches, MaxLength } from 'class-validator';

export const MAX_CODE_LENGTH = 128;
export const MAX_USER_ID_LENGTH = 256;
export const MAX_ROLE_LENGTH = 64;
export const MAX_EXTERNAL_REF_LENGTH = 256;

const NO_OUTER_SPACE = /^\S(?:[\s\S]*\S)?$/;

/** A non-empty string without leading or trailing white space, at most `max` characters. */
export const IsIdentifier = (max: number, each = false) =>
  applyDecorators(
    IsString({ each }),
    IsNotEmpty({ each }),
    MaxLength(max, { each }),
    Matches(NO_OUTER_SPACE, { each, message: ({ property }) => `${property} must not start or end with white space` }),
  );
