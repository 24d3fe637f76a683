import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';
import { CLAIM_FORMATS } from '@lib/auth';
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

/**
 * The IdP of the user(s) a request names, as the `idp` claim of their tokens carries it: a user is
 * tenant, IdP and subject. Optional; the caller's own IdP when omitted.
 */
export const OptionalIdpId = () =>
  applyDecorators(
    ApiPropertyOptional({
      maxLength: 256,
      pattern: CLAIM_FORMATS.idp.pattern.source,
      description: "The IdP of the user (the `idp` claim of its tokens); the caller's IdP when omitted",
    }),
    IsOptional(),
    IsString(),
    Matches(CLAIM_FORMATS.idp.pattern, { message: ({ property }) => `${property} must be an IdP id (${CLAIM_FORMATS.idp.rule})` }),
  );
