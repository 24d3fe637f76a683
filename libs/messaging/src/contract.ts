/**
 * Every NATS subject the platform uses, with its payload types: the messaging equivalent of
 * HTTP DTOs. Every payload carries the tenant; a handler never acts outside it.
 */
import type { PrincipalTeam } from '@lib/auth/principal';
import type { AuthType } from '@lib/auth/token-claims';

export interface TenantScoped {
  tenantId: string;
}

// ---- request/reply (served by authz, "core") ----
export interface ResolvePrincipalRequest extends TenantScoped {
  userId: string;
  idpId: string;
  groups: string[];
}
export interface ResolvePrincipalReply {
  authType: AuthType;
  authTypeId?: string;
  teams: PrincipalTeam[];
  roles: string[];
  isSystemAdmin: boolean;
}

export interface GetConfigValueRequest extends TenantScoped {
  key: string;
}
export interface GetConfigValueReply {
  key: string;
  value: string | string[] | Record<string, unknown> | null;
}

export type ListFlagsRequest = TenantScoped;
export interface FeatureFlagRecord {
  configurationkey: string;
  configurationvalue: string;
}
export interface ListFlagsReply {
  flags: FeatureFlagRecord[];
}
export interface SetFlagRequest extends TenantScoped {
  key: string;
  value: string;
  actor: string;
  mode: 'create' | 'update';
}
export interface SetFlagReply {
  flag: FeatureFlagRecord;
  /** The flag did not exist before (POST answers 201 then). */
  created: boolean;
}

export interface Requests {
  'authz.principal.resolve': [ResolvePrincipalRequest, ResolvePrincipalReply];
  'core.config.get': [GetConfigValueRequest, GetConfigValueReply];
  'core.flags.list': [ListFlagsRequest, ListFlagsReply];
  'core.flags.set': [SetFlagRequest, SetFlagReply];
}
export type RequestSubject = keyof Requests;
export type RequestOf<S extends RequestSubject> = Requests[S][0];
export type ReplyOf<S extends RequestSubject> = Requests[S][1];

// ---- events (cache invalidation and notifications) ----
export interface AuthzConfigChanged extends TenantScoped {
  idpId?: string;
  authTypeId?: string;
}
export interface MembershipChanged extends TenantScoped {
  userIds?: string[];
  teamCodes?: string[];
}
export interface KeysChanged extends TenantScoped {
  keys: string[];
}
export interface BudgetThresholdCrossed extends TenantScoped {
  budgetId: string;
  budgetName: string;
  amount: number;
  actual: number;
  currency: string;
  period: string;
  threshold: number;
  percentUsed: number;
}
/** Provider metadata of the tenant was written; every costasset instance drops its cached snapshots. */
export interface ProviderMetadataChanged extends TenantScoped {
  providerNames: string[];
}

/** Line items of a tenant were written or removed (ingestion, cleanup, deletion requests). */
export interface LineItemsChanged extends TenantScoped {
  periods: string[];
  reason: 'ingestion' | 'cleanup' | 'deletion' | 'remediation' | 'housekeeping';
}

export interface Events {
  'authz.config.changed': AuthzConfigChanged;
  'authz.membership.changed': MembershipChanged;
  'core.flags.changed': KeysChanged;
  'core.config.changed': KeysChanged;
  'costasset.budget.threshold': BudgetThresholdCrossed;
  'costasset.lineitems.changed': LineItemsChanged;
  'costasset.providermetadata.changed': ProviderMetadataChanged;
}
export type EventSubject = keyof Events;

/** A reply either carries data or the problem the caller should surface. */
export type ReplyEnvelope<T> =
  | { ok: true; data: T }
  | { ok: false; error: { status: number; code: string; detail: string } };
