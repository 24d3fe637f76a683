import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';

/**
 * The metadata key under which a route declares who may call it (its access rule). The rules,
 * their guard and the other declarations are @lib/auth's (`Access`, `SignedIn`, …); the key and
 * the public rule live here so that lower libraries (http's health and metrics routes) can mark
 * their routes public without depending on auth.
 */
export const ACCESS_RULE = 'auth:access';

/** The access rule of a route anyone may call, without a token. */
export const PUBLIC_ACCESS = 'public';

/** Anyone, without a token. The rule shows in the OpenAPI document as `x-access`. */
export const Public = () => applyDecorators(SetMetadata(ACCESS_RULE, PUBLIC_ACCESS), ApiExtension('x-access', PUBLIC_ACCESS));
