/**
 * Every NATS subject the platform uses, with its payload classes: the messaging equivalent of
 * HTTP DTOs. Each payload is validated against its class when it is received (requests by the
 * server, replies by the requester, events by each subscriber); fields a newer sender adds are
 * dropped, a missing or mistyped one refuses the message. Every payload carries the tenant; a
 * handler never acts outside it.
 */
import { applyDecorators } from '@nestjs/common';
import { Type } from 'class-transformer';
import {
  Allow,
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { AUTH_TYPES, type AuthType, type PrincipalTeam } from '@lib/auth';

const MAX_ID = 512;
const MAX_LIST = 10_000;

/** Strings of at most `MAX_ID` characters, in a list of at most `MAX_LIST`. */
const IdList = () => applyDecorators(IsArray(), ArrayMaxSize(MAX_LIST), IsString({ each: true }), MaxLength(MAX_ID, { each: true }));

export class TenantScoped {
  @IsString()
  @MaxLength(MAX_ID)
  tenantId: string;
}

// ---- request/reply (served by authz, "core") ----
export class ResolvePrincipalRequest extends TenantScoped {
  @IsString() @MaxLength(MAX_ID) userId: string;
  @IsString() @MaxLength(MAX_ID) idpId: string;
  @IdList() groups: string[];
  /** The token's session (`sid`): authz refuses the request when it is revoked. */
  @IsOptional() @IsString() @MaxLength(MAX_ID) sessionId?: string;
}

export class PrincipalTeamMessage implements PrincipalTeam {
  @IsString() @MaxLength(MAX_ID) teamCode: string;
  @IsString() @MaxLength(MAX_ID) orgCode: string;
  @IdList() roles: string[];
  @IsIn(['internal', 'external']) via: 'internal' | 'external';
}

export class ResolvePrincipalReply {
  @IsIn(AUTH_TYPES) authType: AuthType;
  @IsOptional() @IsString() @MaxLength(MAX_ID) authTypeId?: string;
  @IsArray() @ArrayMaxSize(MAX_LIST) @ValidateNested({ each: true }) @Type(() => PrincipalTeamMessage) teams: PrincipalTeam[];
  @IdList() roles: string[];
  @IsBoolean() isSystemAdmin: boolean;
}

export class GetConfigValueRequest extends TenantScoped {
  @IsString() @MaxLength(MAX_ID) key: string;
}
export class GetConfigValueReply {
  @IsString() @MaxLength(MAX_ID) key: string;
  /** A string, a list of strings, an object or null, as the key's rules in authz allow. */
  @Allow() value: string | string[] | Record<string, unknown> | null;
}

export class ListFlagsRequest extends TenantScoped {}
export class FeatureFlagRecord {
  @IsString() @MaxLength(MAX_ID) configurationkey: string;
  @IsString() @MaxLength(MAX_ID) configurationvalue: string;
}
export class ListFlagsReply {
  @IsArray() @ArrayMaxSize(MAX_LIST) @ValidateNested({ each: true }) @Type(() => FeatureFlagRecord) flags: FeatureFlagRecord[];
}
export class SetFlagRequest extends TenantScoped {
  @IsString() @MaxLength(MAX_ID) key: string;
  @IsString() @MaxLength(MAX_ID) value: string;
  @IsString() @MaxLength(MAX_ID) actor: string;
  @IsIn(['create', 'update']) mode: 'create' | 'update';
}
export class SetFlagReply {
  @IsDefined() @IsObject() @ValidateNested() @Type(() => FeatureFlagRecord) flag: FeatureFlagRecord;
  /** The flag did not exist before (POST answers 201 then). */
  @IsBoolean() created: boolean;
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

type ClassOf<T> = new () => T;

/** The classes a request and its reply are validated against, per subject. */
export const REQUEST_PAYLOADS: { [S in RequestSubject]: [ClassOf<RequestOf<S>>, ClassOf<ReplyOf<S>>] } = {
  'authz.principal.resolve': [ResolvePrincipalRequest, ResolvePrincipalReply],
  'core.config.get': [GetConfigValueRequest, GetConfigValueReply],
  'core.flags.list': [ListFlagsRequest, ListFlagsReply],
  'core.flags.set': [SetFlagRequest, SetFlagReply],
};

// ---- events (cache invalidation and notifications) ----
export class AuthzConfigChanged extends TenantScoped {
  @IsOptional() @IsString() @MaxLength(MAX_ID) idpId?: string;
  @IsOptional() @IsString() @MaxLength(MAX_ID) authTypeId?: string;
}
export class MembershipChanged extends TenantScoped {
  @IsOptional() @IdList() userIds?: string[];
  @IsOptional() @IdList() teamCodes?: string[];
}
/**
 * A user's sessions were revoked (sign-out, refresh-token reuse) or the user was disabled: every
 * instance drops the user's cached principals, so its next request is checked against the store.
 */
export class UserAccessRevoked extends TenantScoped {
  @IsString() @MaxLength(MAX_ID) userId: string;
}
export class KeysChanged extends TenantScoped {
  @IdList() keys: string[];
}
/**
 * A budget crossed a threshold in a period. Figures are over the budget's whole scope in the
 * tenant (what its System Admin set it on), whoever later reads the budget.
 */
export class BudgetThresholdCrossed extends TenantScoped {
  @IsString() @MaxLength(MAX_ID) budgetId: string;
  @IsString() @MaxLength(MAX_ID) budgetName: string;
  @IsNumber() amount: number;
  @IsNumber() actual: number;
  @IsString() @MaxLength(16) currency: string;
  @IsString() @MaxLength(16) period: string;
  @IsNumber() threshold: number;
  @IsNumber() percentUsed: number;
  /** `actual`: the cost reached the threshold; `forecast`: the month-end forecast is to exceed it. Missing (older publishers): actual. */
  @IsOptional() @IsIn(['actual', 'forecast']) kind?: 'actual' | 'forecast';
  /** The period's month-end forecast; null when there is none (no recent daily cost, or a period beyond the forecast's horizon). */
  @IsOptional() @IsNumber() forecast?: number | null;
}
/** Provider metadata of the tenant was written; every costasset instance drops its cached snapshots. */
export class ProviderMetadataChanged extends TenantScoped {
  @IdList() providerNames: string[];
}

export const LINE_ITEM_CHANGE_REASONS = ['ingestion', 'cleanup', 'deletion', 'remediation', 'housekeeping'] as const;
/** Line items of a tenant were written or removed (ingestion, cleanup, deletion requests). */
export class LineItemsChanged extends TenantScoped {
  @IdList() periods: string[];
  @IsIn(LINE_ITEM_CHANGE_REASONS) reason: (typeof LINE_ITEM_CHANGE_REASONS)[number];
}

export interface Events {
  'authz.config.changed': AuthzConfigChanged;
  'authz.membership.changed': MembershipChanged;
  'authz.access.revoked': UserAccessRevoked;
  'core.flags.changed': KeysChanged;
  'core.config.changed': KeysChanged;
  'costasset.budget.threshold': BudgetThresholdCrossed;
  'costasset.lineitems.changed': LineItemsChanged;
  'costasset.providermetadata.changed': ProviderMetadataChanged;
}
export type EventSubject = keyof Events;

/** The class each event is validated against, per subject. */
export const EVENT_PAYLOADS: { [E in EventSubject]: ClassOf<Events[E]> } = {
  'authz.config.changed': AuthzConfigChanged,
  'authz.membership.changed': MembershipChanged,
  'authz.access.revoked': UserAccessRevoked,
  'core.flags.changed': KeysChanged,
  'core.config.changed': KeysChanged,
  'costasset.budget.threshold': BudgetThresholdCrossed,
  'costasset.lineitems.changed': LineItemsChanged,
  'costasset.providermetadata.changed': ProviderMetadataChanged,
};

/** A reply either carries data or the problem the caller should surface. */
export type ReplyEnvelope<T> = { ok: true; data: T } | { ok: false; error: { status: number; code: string; detail: string } };
