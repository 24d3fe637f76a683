import { Injectable } from '@nestjs/common';
import type { PipelineStage } from 'mongoose';
import type { Principal } from '@lib/auth';
import { ProblemException } from '@lib/core';
import { compileExpression, compileFilter, dimensionsRead, ExpressionError } from '../expressions';
import { JOB_TYPES } from '../jobs/job-types';
import { JobsService, keyedJobId } from '../jobs/jobs.service';
import { CostLineItemRepository } from '../line-items/line-items.repository';
import { RollupPlanner } from '../rollups/rollup-planner';
import { RollupsService } from '../rollups/rollups.service';
import { AllocationModel } from './allocation-model';
import { definitionsOf } from './allocation-models';
import { AllocationProblems } from './allocation.problems';
import { AllocationSettingsRepository, DimensionVersionRepository } from './allocation.repositories';
import {
  AllocationSettingsResponse,
  DEFAULT_UNALLOCATED,
  DimensionPreviewRequest,
  DimensionPreviewResponse,
  DimensionRequest,
  DimensionResponse,
  DimensionVersionResponse,
  MAX_DIMENSIONS,
  MAX_TAG_KEYS,
  ObservedTagKeysResponse,
  PeriodRangeQuery,
  ProvidersRequest,
  ProvidersResponse,
  SplitRuleResponse,
  SplitRulesRequest,
  SplitRulesResponse,
  TagKeyRequest,
  UpdateDimensionRequest,
} from './dto/allocation.dto';
import type { AllocationSettings, StoredDimension, StoredSplit } from './schemas/allocation-settings.schema';
import { compileSplits } from './split-rules';

type Settings = Pick<AllocationSettings, 'tagKeys' | 'dimensions' | 'splits' | 'providers'>;
const ATTEMPTS = 5;

/** The job that recomputes a tenant's rollups after the settings of `revision` (one per revision, whatever the instances). */
export const rebuildJobKey = (tenantId: string, revision: number) => `allocation:${tenantId}:${revision}`;

const byWho = (principal: Principal) => principal.userId;

/**
 * Cost allocation (docs/allocation.md): activated tag keys and virtual dimensions. Every change is
 * saved as the next revision of the tenant's settings, then the rollups are recomputed by a job;
 * until it ends, queries on tags and dimensions read the line items (so they never mix revisions).
 */
@Injectable()
export class AllocationService {
  constructor(
    private readonly settings: AllocationSettingsRepository,
    private readonly versions: DimensionVersionRepository,
    private readonly rollups: RollupsService,
    private readonly planner: RollupPlanner,
    private readonly jobs: JobsService,
    private readonly lineItems: CostLineItemRepository,
  ) {}

  async overview(tenantId: string): Promise<AllocationSettingsResponse> {
    const [settings, view] = await Promise.all([this.settings.current(tenantId), this.planner.view(tenantId)]);
    return {
      revision: settings.revision,
      tagKeys: settings.tagKeys.map((entry) => ({
        group: entry.group ?? null,
        key: entry.key,
        activatedAt: new Date(entry.activatedAt).toISOString(),
        activatedBy: entry.activatedBy,
      })),
      dimensions: settings.dimensions.map((dimension) => dimension.name),
      rollups: {
        current: view.rollupsReady && (!view.allocationReady || (view.allocationReady.month && view.allocationReady.day)),
        ...(settings.rollupRevision ? { jobId: keyedJobId(rebuildJobKey(tenantId, settings.rollupRevision)) } : {}),
      },
    };
  }

  async splitRules(tenantId: string): Promise<SplitRulesResponse> {
    const settings = await this.settings.current(tenantId);
    return { rules: (settings.splits ?? []).map(presentSplit), revision: settings.revision };
  }

  /**
   * Replaces the split rules (the whole ordered list): each is checked against the tenant's
   * allocation (`compileSplits`), names are unique, and no split takes back what it or a later one
   * gives. Splits are applied when cost is read, so no rollup is recomputed.
   */
  async replaceSplitRules(tenantId: string, body: SplitRulesRequest): Promise<SplitRulesResponse> {
    const names = new Set<string>();
    for (const [index, rule] of body.rules.entries()) {
      if (names.has(rule.name)) throw AllocationProblems.invalidSplit(`splits.${index}.name`, `a second split named '${rule.name}'`);
      names.add(rule.name);
    }
    const splits = body.rules.map((rule) => ({
      name: rule.name,
      source: rule.source,
      target: rule.target,
      method: rule.method,
      targets: rule.targets.map(({ value, percent }) => (percent === undefined ? { value } : { value, percent })),
    }));
    compileSplits(splits, new AllocationModel(definitionsOf(await this.settings.current(tenantId))));
    await this.change(tenantId, (settings) => ({ ...settings, splits }), false);
    return this.splitRules(tenantId);
  }

  async providers(tenantId: string): Promise<ProvidersResponse> {
    const settings = await this.settings.current(tenantId);
    return {
      providers: (settings.providers ?? []).map(({ name, aliases }) => ({ name, aliases: [...aliases] })),
      revision: settings.revision,
    };
  }

  /**
   * Replaces the declared providers: names and aliases are compared without regard to case, and
   * one may belong to one provider only. Applied when cost is read: nothing is recomputed.
   */
  async replaceProviders(tenantId: string, body: ProvidersRequest): Promise<ProvidersResponse> {
    const owner = new Map<string, string>();
    body.providers.forEach((provider, index) => {
      for (const name of [provider.name, ...provider.aliases]) {
        const other = owner.get(name.toLowerCase());
        if (other !== undefined && other !== provider.name)
          throw AllocationProblems.invalidProvider(`providers.${index}`, `'${name}' already names provider '${other}'`);
        owner.set(name.toLowerCase(), provider.name);
      }
    });
    const providers = body.providers.map(({ name, aliases }) => ({ name, aliases: [...new Set(aliases)] }));
    await this.change(tenantId, (settings) => ({ ...settings, providers }), false);
    return this.providers(tenantId);
  }

  /** The tag keys of the line items in a range of periods, with the share of cost carrying each. */
  async observedTagKeys(tenantId: string, query: PeriodRangeQuery): Promise<ObservedTagKeysResponse> {
    const { from, to } = await this.range(tenantId, query);
    const [settings, exclusion] = await Promise.all([this.settings.current(tenantId), this.planner.exclusion(tenantId)]);
    const match = { $and: [{ period: { $gte: from, $lte: to } }, exclusion] };
    const [totals, keys] = await Promise.all([
      this.lineItems.aggregate<{ cost: number }>(tenantId, [{ $match: match }, { $group: { _id: null, cost: { $sum: '$cost' } } }]),
      this.lineItems.aggregate<{ _id: { group: string; key: string }; cost: number; lineItems: number }>(tenantId, [
        { $match: { ...match, 'tags.0': { $exists: true } } },
        { $project: { cost: 1, tags: 1 } },
        { $unwind: '$tags' },
        { $group: { _id: { group: '$tags.group', key: '$tags.key' }, cost: { $sum: '$cost' }, lineItems: { $sum: 1 } } },
      ] as PipelineStage[]),
    ]);
    const totalCost = totals[0]?.cost ?? 0;
    const active = (group: string, key: string) =>
      settings.tagKeys.some((entry) => entry.key === key && (entry.group === null || entry.group === undefined || entry.group === group));
    const items = keys
      .map(({ _id, cost, lineItems }) => ({
        group: _id.group,
        key: _id.key,
        lineItems,
        cost,
        coverage: totalCost === 0 ? 0 : cost / totalCost,
        active: active(_id.group, _id.key),
      }))
      .sort((a, b) => b.cost - a.cost || a.group.localeCompare(b.group) || a.key.localeCompare(b.key));
    return { from, to, totalCost, items };
  }

  async activate(principal: Principal, body: TagKeyRequest): Promise<AllocationSettingsResponse> {
    const group = body.group ?? null;
    await this.change(principal.tenantId, (settings) => {
      if (settings.tagKeys.some((entry) => (entry.group ?? null) === group && entry.key === body.key))
        throw AllocationProblems.tagKeyActive(group, body.key);
      if (settings.tagKeys.length >= MAX_TAG_KEYS) throw AllocationProblems.tooMany('activated tag keys', MAX_TAG_KEYS);
      return {
        ...settings,
        tagKeys: [...settings.tagKeys, { group, key: body.key, activatedAt: new Date(), activatedBy: byWho(principal) }],
      };
    });
    return this.overview(principal.tenantId);
  }

  async deactivate(principal: Principal, body: TagKeyRequest): Promise<AllocationSettingsResponse> {
    const group = body.group ?? null;
    await this.change(principal.tenantId, (settings) => {
      const kept = settings.tagKeys.filter((entry) => !((entry.group ?? null) === group && entry.key === body.key));
      if (kept.length === settings.tagKeys.length) throw AllocationProblems.tagKeyNotActive(group, body.key);
      return { ...settings, tagKeys: kept };
    });
    return this.overview(principal.tenantId);
  }

  async dimensions(tenantId: string): Promise<DimensionResponse[]> {
    return (await this.settings.current(tenantId)).dimensions.map(presentDimension);
  }

  async dimension(tenantId: string, name: string): Promise<DimensionResponse> {
    const found = (await this.settings.current(tenantId)).dimensions.find((dimension) => dimension.name === name);
    if (!found) throw AllocationProblems.dimensionNotFound(name);
    return presentDimension(found);
  }

  async createDimension(principal: Principal, body: DimensionRequest): Promise<DimensionResponse> {
    checkRules(body.rules);
    const now = new Date();
    const created: StoredDimension = {
      name: body.name,
      ...(body.description === undefined ? {} : { description: body.description }),
      rules: body.rules.map(({ expr, value }) => ({ expr, value })),
      defaultValue: body.defaultValue ?? DEFAULT_UNALLOCATED,
      version: 1,
      createdAt: now,
      updatedAt: now,
      updatedBy: byWho(principal),
    };
    await this.change(principal.tenantId, (settings) => {
      if (settings.dimensions.some((dimension) => dimension.name === body.name)) throw AllocationProblems.dimensionExists(body.name);
      if (settings.dimensions.length >= MAX_DIMENSIONS) throw AllocationProblems.tooMany('dimensions', MAX_DIMENSIONS);
      return { ...settings, dimensions: [...settings.dimensions, created] };
    });
    await this.recordVersion(principal.tenantId, created, 'created');
    return presentDimension(created);
  }

  async updateDimension(principal: Principal, name: string, body: UpdateDimensionRequest): Promise<DimensionResponse> {
    checkRules(body.rules);
    let updated: StoredDimension | undefined;
    await this.change(principal.tenantId, (settings) => {
      const current = settings.dimensions.find((dimension) => dimension.name === name);
      if (!current) throw AllocationProblems.dimensionNotFound(name);
      if (current.version !== body.version) throw AllocationProblems.versionConflict(name, current.version);
      updated = {
        ...current,
        ...(body.description === undefined ? {} : { description: body.description }),
        rules: body.rules.map(({ expr, value }) => ({ expr, value })),
        defaultValue: body.defaultValue ?? current.defaultValue,
        version: current.version + 1,
        updatedAt: new Date(),
        updatedBy: byWho(principal),
      };
      return { ...settings, dimensions: settings.dimensions.map((dimension) => (dimension.name === name ? updated! : dimension)) };
    });
    await this.recordVersion(principal.tenantId, updated!, 'updated');
    return presentDimension(updated!);
  }

  async deleteDimension(principal: Principal, name: string): Promise<void> {
    let deleted: StoredDimension | undefined;
    await this.change(principal.tenantId, (settings) => {
      deleted = settings.dimensions.find((dimension) => dimension.name === name);
      if (!deleted) throw AllocationProblems.dimensionNotFound(name);
      return { ...settings, dimensions: settings.dimensions.filter((dimension) => dimension.name !== name) };
    });
    await this.recordVersion(principal.tenantId, { ...deleted!, version: deleted!.version + 1, updatedBy: byWho(principal) }, 'deleted');
  }

  async history(tenantId: string, name: string): Promise<DimensionVersionResponse[]> {
    const versions = await this.versions.find(tenantId, { name }, { sort: { version: -1 }, limit: 200 });
    if (versions.length === 0) throw AllocationProblems.dimensionNotFound(name);
    return versions.map((version) => ({
      version: version.version,
      change: version.change,
      ...(version.description === undefined ? {} : { description: version.description }),
      rules: version.rules.map(({ expr, value }) => ({ expr, value })),
      defaultValue: version.defaultValue,
      changedAt: new Date(version.changedAt).toISOString(),
      changedBy: version.changedBy,
    }));
  }

  /**
   * What rules would do before they are saved: per rule, the line items and cost it takes (those
   * an earlier rule took are not counted again), per value, and what stays with the default.
   */
  async preview(tenantId: string, body: DimensionPreviewRequest): Promise<DimensionPreviewResponse> {
    const predicates = checkRules(body.rules).map((filter) => compileFilter(filter));
    const defaultValue = body.defaultValue ?? DEFAULT_UNALLOCATED;
    const { from, to } = await this.range(tenantId, body);
    const exclusion = await this.planner.exclusion(tenantId);
    // the database groups by what the rules read (fields and raw tags), the rules run here once per group
    const fields = [
      ...new AllocationModel({ revision: 0, tagKeys: [], dimensions: [{ name: 'preview', rules: body.rules, defaultValue }] }).ruleFields(),
    ];
    const id: Record<string, unknown> = { tags: '$tags' };
    for (const field of fields) id[field] = `$${field}`;
    const groups = await this.lineItems.aggregate<{ _id: Record<string, unknown>; cost: number; lineItems: number }>(
      tenantId,
      [
        { $match: { $and: [{ period: { $gte: from, $lte: to } }, exclusion] } },
        { $group: { _id: id, cost: { $sum: '$cost' }, lineItems: { $sum: 1 } } },
      ] as PipelineStage[],
      'bulk',
    );
    const rows = new Map<number, { _id: number; cost: number; lineItems: number }>();
    for (const group of groups) {
      const index = predicates.findIndex((matches) => matches(group._id));
      const row = rows.get(index) ?? { _id: index, cost: 0, lineItems: 0 };
      row.cost += group.cost;
      row.lineItems += group.lineItems;
      rows.set(index, row);
    }
    const share = (index: number) => rows.get(index) ?? { cost: 0, lineItems: 0 };
    const rules = body.rules.map((rule, index) => ({
      rule: index,
      value: rule.value,
      cost: share(index).cost,
      lineItems: share(index).lineItems,
    }));
    const unallocated = { value: defaultValue, unallocated: true, cost: share(-1).cost, lineItems: share(-1).lineItems };
    const values = new Map<string, { value: string; unallocated: boolean; cost: number; lineItems: number }>();
    for (const entry of [...rules, unallocated]) {
      const value = values.get(entry.value) ?? { value: entry.value, unallocated: entry.value === defaultValue, cost: 0, lineItems: 0 };
      value.cost += entry.cost;
      value.lineItems += entry.lineItems;
      values.set(entry.value, value);
    }
    const total = [...rows.values()].reduce((sum, row) => ({ cost: sum.cost + row.cost, lineItems: sum.lineItems + row.lineItems }), {
      cost: 0,
      lineItems: 0,
    });
    return { from, to, rules, unallocated, values: [...values.values()].sort((a, b) => b.cost - a.cost), total };
  }

  /**
   * Saves a change as the next revision, if nobody wrote since the settings were read. One that
   * changes what rollups hold (`rollups`) gets a new `rollupRevision`: from then on queries reading
   * allocation fields read the line items by the new settings until the rows holding them are
   * recomputed (the others go on reading the rollups); uploads being written are bumped, so that
   * their writers recompute with the new settings; the job recomputing the rest is queued.
   */
  private async change(tenantId: string, mutate: (settings: Settings) => Settings, rollups = true): Promise<void> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const current = await this.settings.current(tenantId);
      const next = mutate({
        tagKeys: current.tagKeys,
        dimensions: current.dimensions,
        splits: current.splits ?? [],
        providers: current.providers ?? [],
      });
      checkSplitsStillValid(next);
      const revision = current.revision + 1;
      const rollupRevision = rollups ? revision : (current.rollupRevision ?? 0);
      if (await this.settings.replace(tenantId, current.revision, { ...next, rollupRevision })) {
        if (!rollups) return;
        await this.rollups.allocationChanged(tenantId);
        await this.jobs.submitOnce(tenantId, JOB_TYPES.allocationRebuild, { revision }, rebuildJobKey(tenantId, revision));
        return;
      }
    }
    throw AllocationProblems.busy();
  }

  private async recordVersion(tenantId: string, dimension: StoredDimension, change: 'created' | 'updated' | 'deleted'): Promise<void> {
    await this.versions.create(tenantId, {
      name: dimension.name,
      version: dimension.version,
      change,
      ...(dimension.description === undefined ? {} : { description: dimension.description }),
      rules: dimension.rules,
      defaultValue: dimension.defaultValue,
      changedAt: dimension.updatedAt,
      changedBy: dimension.updatedBy,
    });
  }

  /** The periods asked for, or the latest period holding data (the current month without any). */
  private async range(tenantId: string, query: PeriodRangeQuery): Promise<{ from: string; to: string }> {
    if (query.from) return { from: query.from, to: query.to ?? query.from };
    const [latest] = await this.lineItems.find(tenantId, {}, { sort: { period: -1 }, limit: 1 }, { period: 1 });
    const period = query.to ?? latest?.period ?? new Date().toISOString().slice(0, 7).replace('-', '');
    return { from: period, to: period };
  }
}

/** A change that would leave a split rule reading or targeting what no longer exists is refused (409 ALLOCATION_IN_USE). */
function checkSplitsStillValid(next: Settings): void {
  if (!next.splits || next.splits.length === 0) return;
  const allocation = new AllocationModel(definitionsOf({ tenantId: '', revision: 0, ...next }));
  try {
    compileSplits(next.splits, allocation);
  } catch (error) {
    if (error instanceof ProblemException && error.code === 'INVALID_SPLIT_RULE') throw AllocationProblems.inUse(error.message);
    throw error;
  }
}

function presentSplit(split: StoredSplit): SplitRuleResponse {
  return {
    name: split.name,
    source: split.source,
    target: split.target,
    method: split.method,
    targets: split.targets.map(({ value, percent }) => (percent === undefined || percent === null ? { value } : { value, percent })),
  };
}

/** Compiles every rule (400 INVALID_EXPRESSION naming the rule); a rule may not read another dimension. */
function checkRules(rules: ReadonlyArray<{ expr: string }>): Record<string, unknown>[] {
  return rules.map((rule, index) => {
    let filter: Record<string, unknown>;
    try {
      filter = compileExpression(rule.expr) as Record<string, unknown>;
    } catch (error) {
      if (error instanceof ExpressionError) throw AllocationProblems.invalidRule(index, error.message, error.position);
      throw error;
    }
    if (dimensionsRead(filter).size > 0) throw AllocationProblems.invalidRule(index, 'a rule cannot read a dimension');
    return filter;
  });
}

function presentDimension(dimension: StoredDimension): DimensionResponse {
  return {
    name: dimension.name,
    ...(dimension.description === undefined ? {} : { description: dimension.description }),
    rules: dimension.rules.map(({ expr, value }) => ({ expr, value })),
    defaultValue: dimension.defaultValue,
    version: dimension.version,
    createdAt: new Date(dimension.createdAt).toISOString(),
    updatedAt: new Date(dimension.updatedAt).toISOString(),
    updatedBy: dimension.updatedBy,
  };
}
