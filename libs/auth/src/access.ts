import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension, ApiForbiddenResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { ACCESS_RULE, Public } from '@lib/core';

/**
 * Who may call a route (the whole matrix is in docs/decisions.md):
 * - `public`: anyone, no token (health, JWKS, token refresh);
 * - `signed-in`: any valid token of the tenant, even of a user in no team (who it is, its own teams);
 * - `member`: a caller in at least one team; the service narrows what it sees (visibility
 *   groups, private report models, its own jobs);
 * - `cost-data`: a caller holding `Cost Data Manager` (or `System Admin`): imports and deletes
 *   cost data, within the billing accounts its visibility groups show it;
 * - `system-admin`: a caller holding the `System Admin` role through one of its teams.
 */
export const ACCESS_RULES = ['public', 'signed-in', 'member', 'cost-data', 'system-admin'] as const;
export type AccessRule = (typeof ACCESS_RULES)[number];

/** The metadata key and `Public()` are @lib/core's, for the routes of libraries below auth (health, metrics). */
export { ACCESS_RULE, Public };

const unauthorized = ApiUnauthorizedResponse({ description: 'No valid corelite-token (`TOKEN_*` codes)' });
const forbidden = (description: string) => applyDecorators(unauthorized, ApiForbiddenResponse({ description }));
const docs: Record<AccessRule, MethodDecorator & ClassDecorator> = {
  public: applyDecorators(),
  'signed-in': unauthorized,
  member: forbidden('`TEAM_REQUIRED`: the caller is in no team'),
  'cost-data': forbidden('`COST_DATA_MANAGER_REQUIRED`: the caller holds neither `Cost Data Manager` nor `System Admin`'),
  'system-admin': forbidden('`SYSTEM_ADMIN_REQUIRED`: the caller is not a System Admin'),
};

/**
 * Declares the access rule of a route, or of every route of a controller (a route's own rule
 * wins). Every route must declare one: a service with a route that does not refuses to start.
 * The rule shows in the OpenAPI document as `x-access`.
 */
export const Access = (rule: AccessRule) => applyDecorators(SetMetadata(ACCESS_RULE, rule), ApiExtension('x-access', rule), docs[rule]);

/** Any valid token of the tenant, a user in no team included. */
export const SignedIn = () => Access('signed-in');
/** A caller in at least one team; the service decides what it sees. */
export const AnyMember = () => Access('member');
/** Callers holding `Cost Data Manager` or `System Admin`: changes to cost data. */
export const CostDataManager = () => Access('cost-data');
/** Callers holding the `System Admin` role through a team. */
export const SystemAdminOnly = () => Access('system-admin');
