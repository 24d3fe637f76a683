import { ProblemException } from '@lib/core';
import {
  combineFilters,
  compileExpression,
  compileFilter,
  DIMENSIONS_FIELD,
  FilterPredicate,
  filterFields,
  tagKeysOf,
} from '../expressions';
import type { DeclaredProvider } from './provider-identity';

/** An activated tag key: `group` null activates the key in any group. */
export interface ActiveTagKey {
  group: string | null;
  key: string;
}

/** One rule of a virtual dimension: line items its expression matches take `value` (the first match wins). */
export interface DimensionRule {
  expr: string;
  value: string;
}

export interface DimensionDefinition {
  name: string;
  rules: DimensionRule[];
  /** What matches no rule: `unallocated` unless named otherwise. */
  defaultValue: string;
}

/** What the rollups and the planner need of a tenant's allocation settings. */
export interface AllocationDefinitions {
  revision: number;
  /** The revision whose change last asked for the rollups to be recomputed (split rules do not). */
  rollupRevision?: number;
  tagKeys: ActiveTagKey[];
  dimensions: DimensionDefinition[];
  /** Declared providers and their aliases (docs/allocation.md, "Provider names"). */
  providers?: DeclaredProvider[];
}

/** A tag as a rollup row keeps it. */
export interface RolledUpTag {
  group: string;
  key: string;
  value: string;
}

type Filter = Record<string, unknown>;
interface CompiledDimension {
  name: string;
  defaultValue: string;
  rules: Array<{ filter: Filter; matches: FilterPredicate; value: string }>;
}

const MATCH_NONE: Filter = { $nor: [{}] };
const DIMENSION_PREFIX = `${DIMENSIONS_FIELD}.`;
/** Classifications kept per model before the memo starts over (a few MB at most). */
const MAX_CLASSIFIED = 100_000;

/**
 * A tenant's allocation settings compiled once (docs/allocation.md): which tags a rollup row keeps
 * (those of activated keys) and the value of every virtual dimension, computed two ways that agree:
 * on a document in memory (`classify`: a line item while a load writes, a group of line items when
 * rollups are recomputed or made for a query), and as a plain filter over line items
 * (`expandDimensions`, for reads the rollups cannot answer). Rules are never evaluated by the
 * database, once per line item.
 */
export class AllocationModel {
  static readonly EMPTY = new AllocationModel({ revision: 0, tagKeys: [], dimensions: [] });

  private readonly anyGroupKeys: ReadonlySet<string>;
  private readonly groupKeys: ReadonlySet<string>;
  private readonly compiled: ReadonlyMap<string, CompiledDimension>;
  /** The line-item fields and tag keys (group and key) a classification depends on. */
  private readonly inputFields: readonly string[];
  private readonly inputTags: ReadonlySet<string>;
  private readonly anyGroupInputs: ReadonlySet<string>;
  private readonly allTags: boolean;
  /** The tags of `inputTags` as pairs (group and key): what `groupingTags` keeps. */
  private readonly countedTags: readonly { group: string; key: string }[];
  /** Classifications by their inputs: documents that differ only in what no rule reads share one. */
  private readonly classified = new Map<string, { tags?: RolledUpTag[]; dimensions?: Record<string, string> }>();

  constructor(readonly definitions: AllocationDefinitions) {
    this.anyGroupKeys = new Set(definitions.tagKeys.filter((entry) => entry.group === null).map((entry) => entry.key));
    this.groupKeys = new Set(definitions.tagKeys.filter((entry) => entry.group !== null).map((entry) => groupKey(entry.group!, entry.key)));
    this.compiled = new Map(
      definitions.dimensions.map((dimension) => [
        dimension.name,
        {
          name: dimension.name,
          defaultValue: dimension.defaultValue,
          rules: dimension.rules.map((rule) => {
            const filter = compileExpression(rule.expr) as Filter;
            return { filter, matches: compileFilter(filter), value: rule.value };
          }),
        },
      ]),
    );
    this.inputFields = [...this.ruleFields()].sort();
    const ruleTagLists = [...this.compiled.values()].flatMap((dimension) => dimension.rules.map((rule) => tagKeysOf(rule.filter)));
    // a rule reading tags in a shape not understood: every tag counts
    this.allTags = ruleTagLists.some((list) => list === null);
    const counted = [
      ...definitions.tagKeys.filter((entry) => entry.group !== null).map((entry) => ({ group: entry.group!, key: entry.key })),
      ...ruleTagLists.flatMap((list) => list ?? []),
    ];
    const countedByKey = new Map(counted.map((tag) => [groupKey(tag.group, tag.key), tag]));
    this.countedTags = [...countedByKey.values()];
    this.inputTags = new Set(countedByKey.keys());
    this.anyGroupInputs = this.anyGroupKeys;
  }

  /**
   * What line items are grouped by in place of their tags before `classify` (the rollups' pipelines):
   * only the tags a classification depends on, so that line items differing in other tags make one
   * group (with ten tags a line item, grouping by all of them leaves about one group per line item).
   * `'$tags'` when a rule reads tags in a shape not understood.
   */
  groupingTags(): unknown {
    if (this.allTags) return '$tags';
    const conditions: unknown[] = this.countedTags.map(({ group, key }) => ({
      $and: [{ $eq: ['$$tag.group', { $literal: group }] }, { $eq: ['$$tag.key', { $literal: key }] }],
    }));
    for (const key of this.anyGroupInputs) conditions.push({ $eq: ['$$tag.key', { $literal: key }] });
    if (conditions.length === 0) return { $literal: [] };
    return { $filter: { input: { $ifNull: ['$tags', []] }, as: 'tag', cond: { $or: conditions } } };
  }

  get revision(): number {
    return this.definitions.revision;
  }

  /** What rollup rows computed with these settings are marked with (RollupKey.allocationRevision). */
  get rollupRevision(): number {
    return this.definitions.rollupRevision ?? 0;
  }

  /** The line-item fields the dimension rules read, but tags (what a document needs for `classify`). */
  ruleFields(): Set<string> {
    const fields = new Set<string>();
    for (const dimension of this.compiled.values()) for (const rule of dimension.rules) filterFields(rule.filter, fields);
    fields.delete('tags');
    return fields;
  }

  /** No activated key and no dimension: rollups hold no allocation fields. */
  get isEmpty(): boolean {
    return this.definitions.tagKeys.length === 0 && this.compiled.size === 0;
  }

  get hasTagKeys(): boolean {
    return this.definitions.tagKeys.length > 0;
  }

  get dimensionNames(): string[] {
    return [...this.compiled.keys()];
  }

  hasDimension(name: string): boolean {
    return this.compiled.has(name);
  }

  /** Whether rollup rows keep this tag. */
  tagKeyActive(group: string, key: string): boolean {
    return this.anyGroupKeys.has(key) || this.groupKeys.has(groupKey(group, key));
  }

  /**
   * The allocation fields of a rollup row for one line item: its tags of activated keys (in the
   * line item's order) and its value of every dimension. Empty without settings.
   */
  classify(doc: Readonly<Record<string, unknown>>): { tags?: RolledUpTag[]; dimensions?: Record<string, string> } {
    const key = this.inputKey(doc);
    let fields = this.classified.get(key);
    if (!fields) {
      if (this.classified.size >= MAX_CLASSIFIED) this.classified.clear();
      fields = this.classifyNow(doc);
      this.classified.set(key, fields);
    }
    return fields;
  }

  /** What a classification depends on, as one string: the fields the rules read and the tags of the keys that count. */
  private inputKey(doc: Readonly<Record<string, unknown>>): string {
    const values: unknown[] = this.inputFields.map((field) => doc[field] ?? null);
    const tags = Array.isArray(doc.tags) ? (doc.tags as RolledUpTag[]) : [];
    for (const tag of tags)
      if (this.allTags || this.inputTags.has(groupKey(tag.group, tag.key)) || this.anyGroupInputs.has(tag.key))
        values.push(tag.group, tag.key, tag.value);
    return JSON.stringify(values);
  }

  private classifyNow(doc: Readonly<Record<string, unknown>>): { tags?: RolledUpTag[]; dimensions?: Record<string, string> } {
    const fields: { tags?: RolledUpTag[]; dimensions?: Record<string, string> } = {};
    if (this.hasTagKeys) {
      const tags = Array.isArray(doc.tags) ? (doc.tags as RolledUpTag[]) : [];
      fields.tags = tags
        .filter((tag) => this.tagKeyActive(tag.group, tag.key))
        .map((tag) => ({ group: tag.group, key: tag.key, value: tag.value }));
    }
    if (this.compiled.size > 0) {
      fields.dimensions = {};
      for (const dimension of this.compiled.values()) fields.dimensions[dimension.name] = valueOf(dimension, doc);
    }
    return fields;
  }

  /** The value one dimension gives a document: the first matching rule's, else the default. */
  dimensionValue(name: string, doc: Readonly<Record<string, unknown>>): string {
    return valueOf(this.dimension(name), doc);
  }

  /**
   * A filter over line items with every `dimensions.<name>` condition replaced by the rules behind
   * it: `== v` is "a rule giving v matches and no rule before it does" (or "no rule matches" when v
   * is the default). Throws UnknownDimensionError for a name the tenant has not defined.
   */
  expandDimensions(filter: Filter): Filter {
    const expanded: Filter[] = [];
    for (const [key, value] of Object.entries(filter)) {
      if (key === '$and' || key === '$or' || key === '$nor') {
        expanded.push({ [key]: (value as Filter[]).map((operand) => this.expandDimensions(operand)) });
      } else if (key.startsWith(DIMENSION_PREFIX)) {
        expanded.push(this.expandCondition(key.slice(DIMENSION_PREFIX.length), value as Filter));
      } else {
        expanded.push({ [key]: value });
      }
    }
    return combineFilters(...expanded);
  }

  private expandCondition(name: string, condition: Filter): Filter {
    const dimension = this.dimension(name);
    const terms = Object.entries(condition).map(([operator, operand]) => {
      if (operator === '$eq') return matchingValue(dimension, operand as string);
      if (operator === '$ne') return { $nor: [matchingValue(dimension, operand as string)] };
      throw new Error(`a dimension condition cannot use ${operator}`);
    });
    return combineFilters(...terms);
  }

  private dimension(name: string): CompiledDimension {
    const dimension = this.compiled.get(name);
    if (!dimension) throw new UnknownDimensionError(name);
    return dimension;
  }
}

/** A query, rule or filter naming a dimension the tenant has not defined: 400 UNKNOWN_DIMENSION. */
export class UnknownDimensionError extends ProblemException {
  constructor(readonly dimension: string) {
    super(400, 'UNKNOWN_DIMENSION', `Unknown dimension '${dimension}': define it under allocation first`, undefined, { dimension });
  }
}

function groupKey(group: string, key: string): string {
  return `${group.length}:${group}${key}`;
}

function valueOf(dimension: CompiledDimension, doc: Readonly<Record<string, unknown>>): string {
  for (const rule of dimension.rules) if (rule.matches(doc)) return rule.value;
  return dimension.defaultValue;
}

function matchingValue(dimension: CompiledDimension, value: string): Filter {
  const alternatives: Filter[] = [];
  dimension.rules.forEach((rule, index) => {
    if (rule.value !== value) return;
    const earlier = dimension.rules.slice(0, index).map((before) => before.filter);
    alternatives.push(earlier.length === 0 ? rule.filter : combineFilters(rule.filter, { $nor: earlier }));
  });
  if (value === dimension.defaultValue)
    alternatives.push(dimension.rules.length === 0 ? {} : { $nor: dimension.rules.map((rule) => rule.filter) });
  if (alternatives.length === 0) return MATCH_NONE;
  return alternatives.length === 1 ? alternatives[0] : { $or: alternatives };
}
