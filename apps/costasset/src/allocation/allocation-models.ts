import { Injectable } from '@nestjs/common';
import { AllocationModel } from './allocation-model';
import { AllocationSettingsRepository } from './allocation.repositories';
import type { AllocationSettings } from './schemas/allocation-settings.schema';

/** The stored settings as the model's definitions. */
export function definitionsOf(settings: AllocationSettings) {
  return {
    revision: settings.revision,
    rollupRevision: settings.rollupRevision ?? 0,
    tagKeys: settings.tagKeys.map(({ group, key }) => ({ group: group ?? null, key })),
    dimensions: settings.dimensions.map(({ name, rules, defaultValue }) => ({
      name,
      defaultValue,
      rules: rules.map(({ expr, value }) => ({ expr, value })),
    })),
    providers: (settings.providers ?? []).map(({ name, aliases }) => ({ name, aliases: [...aliases] })),
  };
}

/**
 * Each tenant's current AllocationModel: one lookup on the unique tenant index per call, and a
 * compilation only when the revision changed since the last one.
 */
@Injectable()
export class AllocationModels {
  private readonly compiled = new Map<string, AllocationModel>();

  constructor(private readonly settings: AllocationSettingsRepository) {}

  async current(tenantId: string): Promise<AllocationModel> {
    const settings = await this.settings.current(tenantId);
    if (settings.revision === 0) return AllocationModel.EMPTY;
    const cached = this.compiled.get(tenantId);
    if (cached && cached.revision === settings.revision) return cached;
    const model = new AllocationModel(definitionsOf(settings));
    this.compiled.set(tenantId, model);
    return model;
  }
}
