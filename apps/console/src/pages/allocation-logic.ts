import type { ApiError } from '../api/problem';
import type {
  ActiveTagKey,
  AllocationSettings,
  Dimension,
  DimensionPreview,
  DimensionPreviewRequest,
  DimensionRequest,
  DimensionRule,
  ObservedTagKey,
  UpdateDimensionRequest,
} from '../api/types';

/** The Allocation page's logic, kept out of the components (unit-tested in allocation-logic.spec.ts). */

/** What the API requires of a dimension's name (docs/allocation.md). */
export const DIMENSION_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
export const DEFAULT_VALUE = 'unallocated';

/** Why a dimension name would be refused, or undefined when it is fine. */
export function nameProblem(name: string): string | undefined {
  if (!name) return 'A name is required.';
  return DIMENSION_NAME.test(name) ? undefined : "1 to 63 lower-case letters, digits, '_' or '-', starting with a letter or digit.";
}

/** A rule as the editor holds it: `id` keeps its row when the rules move. */
export interface RuleDraft {
  id: number;
  expr: string;
  value: string;
}

export interface DimensionDraft {
  name: string;
  description: string;
  rules: RuleDraft[];
  defaultValue: string;
  /** The version the edit started from; none for a new dimension. */
  version?: number;
}

let nextRuleId = 1;
export const newRule = (expr = '', value = ''): RuleDraft => ({ id: nextRuleId++, expr, value });

/** The editor's draft of a dimension, or of a new one (one empty rule). */
export function draftOf(dimension?: Pick<Dimension, 'name' | 'description' | 'rules' | 'defaultValue' | 'version'>): DimensionDraft {
  if (!dimension) return { name: '', description: '', rules: [newRule()], defaultValue: DEFAULT_VALUE };
  return {
    name: dimension.name,
    description: dimension.description ?? '',
    rules: dimension.rules.map((rule) => newRule(rule.expr, rule.value)),
    defaultValue: dimension.defaultValue,
    version: dimension.version,
  };
}

/** The rules with the one at `index` moved `by` places (kept within the list). */
export function moveRule<T>(rules: readonly T[], index: number, by: number): T[] {
  const to = Math.min(Math.max(index + by, 0), rules.length - 1);
  const next = [...rules];
  const [moved] = next.splice(index, 1);
  next.splice(to, 0, moved);
  return next;
}

const complete = (rule: RuleDraft) => rule.expr.trim() !== '' && rule.value.trim() !== '';

/** The positions (0 first) of the rules that still lack an expression or a value. */
export const incompleteRules = (rules: readonly RuleDraft[]) => rules.flatMap((rule, index) => (complete(rule) ? [] : [index]));

/**
 * The preview request of a draft: its complete rules only (a rule being written is left out until
 * it has both an expression and a value), and `sent`, the draft's index of each rule sent.
 */
export function previewRequest(
  draft: Pick<DimensionDraft, 'rules' | 'defaultValue'>,
  range: { from?: string; to?: string } = {},
): { body: DimensionPreviewRequest; sent: number[] } {
  const sent = draft.rules.flatMap((rule, index) => (complete(rule) ? [index] : []));
  return {
    body: {
      rules: sent.map((index) => ({ expr: draft.rules[index].expr, value: draft.rules[index].value.trim() })),
      defaultValue: draft.defaultValue.trim() || DEFAULT_VALUE,
      ...(range.from ? { from: range.from } : {}),
      ...(range.to ? { to: range.to } : {}),
    },
    sent,
  };
}

/** Each rule's share in a preview, by the rule it was sent for (`sent`: what identifies each rule sent, in order). */
export function ruleShares<T>(preview: DimensionPreview, sent: readonly T[]): Map<T, DimensionPreview['rules'][number]> {
  const shares = new Map<T, DimensionPreview['rules'][number]>();
  for (const share of preview.rules) if (share.rule < sent.length) shares.set(sent[share.rule], share);
  return shares;
}

/** An INVALID_EXPRESSION of a rule, placed on the rule it is about: the position in its text, the message. */
export interface RuleProblem<T> {
  rule: T;
  position?: number;
  message: string;
}

/**
 * Where a problem belongs: an INVALID_EXPRESSION naming a rule goes to that rule (`sent`: what
 * identifies each rule of the request, in order), anything else to the form (undefined here).
 */
export function ruleProblemOf<T>(error: ApiError | undefined, sent: readonly T[]): RuleProblem<T> | undefined {
  if (!error || error.rule === undefined || error.rule >= sent.length) return undefined;
  const field = error.extra.errors?.find((entry) => entry.field === `rules.${error.rule}.expr`);
  return { rule: sent[error.rule], position: error.position, message: field ? field.messages.join(', ') : error.detail };
}

/** The body of a create (POST) or of an update (PUT, with the version the edit started from). */
export function saveRequest(
  draft: DimensionDraft,
): { create: DimensionRequest; update?: undefined } | { create?: undefined; update: UpdateDimensionRequest } {
  const rules: DimensionRule[] = draft.rules.map((rule) => ({ expr: rule.expr, value: rule.value.trim() }));
  const description = draft.description.trim();
  const common = {
    ...(description ? { description } : {}),
    rules,
    defaultValue: draft.defaultValue.trim() || DEFAULT_VALUE,
  };
  return draft.version === undefined
    ? { create: { name: draft.name.trim(), ...common } }
    : { update: { ...common, version: draft.version } };
}

/** The share of a total, 0 when there is no total. */
export const shareOf = (part: number, total: number) => (total === 0 ? 0 : part / total);

/** A tag key as the table shows it: observed in the periods read, or only activated. */
export interface TagKeyRow {
  group: string | null;
  key: string;
  cost: number;
  lineItems: number;
  coverage: number;
  /** Whether it is rolled up (activated in its group, or in every group). */
  active: boolean;
  /** The activation that rolls it up (to deactivate it), when it is active. */
  activation?: ActiveTagKey;
  /** Seen in the periods read. */
  observed: boolean;
}

export const tagKeyName = (group: string | null, key: string) => (group === null ? `${key} (any group)` : `${group}:${key}`);
export const tagKeyId = (row: Pick<TagKeyRow, 'group' | 'key'>) => `${row.group ?? '*'}:${row.key}`;

/** The activation covering a key of a group: its own, or the key's in every group. */
export function activationOf(active: readonly ActiveTagKey[], group: string | null, key: string): ActiveTagKey | undefined {
  return (
    active.find((entry) => entry.key === key && entry.group === group) ?? active.find((entry) => entry.key === key && entry.group === null)
  );
}

/**
 * The rows of the tag-key table: every key observed (in the API's order), then the activated keys
 * not seen in the periods read (so that they can be deactivated too).
 */
export function tagKeyRows(observed: readonly ObservedTagKey[], activeKeys: readonly ActiveTagKey[] | undefined): TagKeyRow[] {
  const active = activeKeys ?? [];
  const rows: TagKeyRow[] = observed.map((item) => {
    const activation = activationOf(active, item.group, item.key);
    // the settings, when known, are newer than the list's `active` (asked before the latest change)
    return { ...item, active: activeKeys ? activation !== undefined : item.active, activation, observed: true };
  });
  for (const entry of active) {
    const seen = observed.some((item) => item.key === entry.key && (entry.group === null || item.group === entry.group));
    if (!seen)
      rows.push({
        group: entry.group,
        key: entry.key,
        cost: 0,
        lineItems: 0,
        coverage: 0,
        active: true,
        activation: entry,
        observed: false,
      });
  }
  return rows;
}

/** The explorer's extra groupings: every dimension, and every activated key of one group (`tag:<group>:<key>`). */
export function groupingChoices(settings: Pick<AllocationSettings, 'dimensions' | 'tagKeys'> | undefined): [string, string][] {
  if (!settings) return [];
  return [
    ...settings.dimensions.map((name): [string, string] => [`dimension:${name}`, `${name} (dimension)`]),
    ...settings.tagKeys
      .filter((entry) => entry.group !== null)
      .map((entry): [string, string] => [`tag:${entry.group}:${entry.key}`, `${entry.group}:${entry.key} (tag)`]),
  ];
}

/** `<input type="month">` speaks YYYY-MM, the API YYYYMM. */
export const monthInput = (period: string | undefined) => (period && period.length === 6 ? `${period.slice(0, 4)}-${period.slice(4)}` : '');
export const periodOfInput = (value: string) => value.replace('-', '');
