import { Injectable } from '@nestjs/common';
import { DEFAULT_ANOMALY_PARAMETERS, type AnomalyDetectionParameters } from '../forecasting/anomaly-detection';
import { AnomalySettingsRepository } from './anomaly.repository';

/** The parameters a tenant may set; `minHistoryDays` stays the model's. */
export const TENANT_PARAMETERS = ['minImpact', 'minImpactRatio', 'minScore', 'windowDays'] as const;
export type TenantParameters = Pick<AnomalyDetectionParameters, (typeof TENANT_PARAMETERS)[number]>;

/** Each tenant's detection parameters: what it set, the defaults (docs/anomalies.md) for the rest. */
@Injectable()
export class AnomalySettingsService {
  constructor(private readonly settings: AnomalySettingsRepository) {}

  async parameters(tenantId: string): Promise<AnomalyDetectionParameters> {
    const stored = await this.settings.findOne(tenantId, {});
    const parameters = { ...DEFAULT_ANOMALY_PARAMETERS };
    for (const name of TENANT_PARAMETERS) {
      const value = stored?.[name];
      if (typeof value === 'number') parameters[name] = value;
    }
    return parameters;
  }

  /** Replaces the tenant's parameters: one left out returns to its default. */
  async replace(tenantId: string, parameters: Partial<TenantParameters>): Promise<AnomalyDetectionParameters> {
    const set: Record<string, number> = {};
    const unset: Record<string, 1> = {};
    for (const name of TENANT_PARAMETERS) {
      if (parameters[name] === undefined) unset[name] = 1;
      else set[name] = parameters[name];
    }
    await this.settings.updateOne(tenantId, {}, { $set: set, $unset: unset }, { upsert: true });
    return this.parameters(tenantId);
  }

  /** Notes that line items of the tenant arrived: from then on the daily run covers it. */
  async imported(tenantId: string, at = new Date()): Promise<void> {
    await this.settings.updateOne(tenantId, {}, { $set: { lastImportAt: at } }, { upsert: true });
  }

  tenantsImportedSince(since: Date): Promise<string[]> {
    return this.settings.tenantsImportedSince(since);
  }
}
