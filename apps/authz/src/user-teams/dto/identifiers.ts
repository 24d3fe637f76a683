import { applyDecorators } from '@nestjs/common';
import { Matches } from 'class-validator';
import { IsSafeText } from '@lib/http';

export const MAX_CODE_LENGTH = 128;
export const MAX_USER_ID_LENGTH = 256;
export const MAX_ROLE_LENGTH = 64;
export const MAX_EXTERNAL_REF_LENGTH = 256;

const NO_OUTER_SPACE = /^\S(?:[\s\S]*\S)?$/;

/** Safe text (see IsSafeText) without leading or trailing white space, at most `max` characters. */
export const IsIdentifier = (max: number, each = false) =>
  applyDecorators(
    IsSafeText(max, { each }),
    Matches(NO_OUTER_SPACE, { each, message: ({ property }) => `${property} must not start or end with white space` }),
  );
