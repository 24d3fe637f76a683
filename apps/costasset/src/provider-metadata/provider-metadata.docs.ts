import { applyDecorators } from '@nestjs/common';
import { ApiBadRequestResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';

export const NOT_FOUND_AS_401 =
  '`PROVIDER_METADATA_NOT_FOUND`: no record matches. The interface answers "record not found" with 401 and existing clients ' +
  'depend on it, so it is kept; tell it from an authentication failure by the `code` (`TOKEN_*` for a missing or invalid token).';

/** The 401 of these operations means two things; both are documented on every operation. */
export const ApiNotFoundAs401 = () => applyDecorators(ApiUnauthorizedResponse({ description: NOT_FOUND_AS_401 }));

export const ApiUnauthenticated = () =>
  applyDecorators(ApiUnauthorizedResponse({ description: '`TOKEN_*`: missing, expired or invalid corelite-token' }));

export const ApiInvalid = (codes: string) => applyDecorators(ApiBadRequestResponse({ description: codes }));
