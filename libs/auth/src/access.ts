import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension, ApiForbiddenResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';

/**
 * Who may call a route:
 * - `public`: anyone, no token (health, JWKS, token refresh);
 * - `member`: any valid token of the tenant; the service narrows what the caller sees
 *   (visibility groups, private report models, job types);
 * - `system-admin`: a caller holding the `System Admin` role through one of its teams.
 */
export const ACCESS_RULES = ['public', 'member', 'system-admin'] as const;
export type AccessRule = (typeof ACCESS_RULES)[number];

export const ACCESS_RULE = 'auth:access';

const unauthorized = ApiUnauthorizedResponse({ description: 'No valid corelite-token (`TOKEN_*` codes)' });
const docs: Record<AccessRule, MethodDecorator & ClassDecorator> = {
  public: applyDecorators(),
  member: unauthorized,
  'system-admin': applyDecorators(
    unauthorized,
    ApiForbiddenResponse({ description: '`SYSTEM_ADMIN_REQUIRED`: the caller is not a System Admin' }),
  ),
};

/**
 * Declares the access rule of a route, or of every route of a controller (a route's own rule
 * wins). Every route must declare one: a service with a route that does not refuses to start.
 * The rule shows in the OpenAPI document as `x-access`.
 */
export const Access = (rule: AccessRule) => applyDecorators(SetMetadata(ACCESS_RULE, rule), ApiExtension('x-access', rule), docs[rule]);

/** Anyone, without a token. */
export const Public = () => Access('public');
/** Any authenticated caller of the tenant; the service decides what it sees. */
export const AnyMember = () => Access('member');
/** Callers holding the `System Admin` role through a team. */
export const SystemAdminOnly = () => Access('system-admin');
