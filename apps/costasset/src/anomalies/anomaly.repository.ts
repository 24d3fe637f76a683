import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { isDuplicateKey } from '@lib/core';
import { TenantRepository } from '@lib/persistence';
import { Anomaly } from './schemas/anomaly.schema';
import { AnomalySettings } from './schemas/anomaly-settings.schema';

/** The figures a detection run writes for one series and day. */
export type AnomalyFigures = Pick<Anomaly, 'dimensions' | 'seriesKey' | 'day' | 'expected' | 'actual' | 'impact' | 'score'>;

@Injectable()
export class AnomalyRepository extends TenantRepository<Anomaly> {
  constructor(@InjectModel(Anomaly.name) model: Model<Anomaly>) {
    super(model);
  }

  /**
   * Records what a run found on one series and day (tenant + series + day, the unique index):
   * updates an open anomaly's figures, leaves an acknowledged or dismissed one alone, creates it
   * otherwise. Answers `created` only when this call inserted it.
   */
  async record(tenantId: string, figures: AnomalyFigures, runId: string): Promise<'created' | 'updated' | 'kept'> {
    const { seriesKey, day, expected, actual, impact, score } = figures;
    const updated = await this.updateOne(
      tenantId,
      { seriesKey, day, status: 'open' },
      { $set: { expected, actual, impact, score, detectionRunId: runId } },
    );
    if (updated > 0) return 'updated';
    try {
      await this.create(tenantId, { ...figures, status: 'open', detectionRunId: runId, firstRunId: runId });
      return 'created';
    } catch (error) {
      if (isDuplicateKey(error)) return 'kept';
      throw error;
    }
  }
}

@Injectable()
export class AnomalySettingsRepository extends TenantRepository<AnomalySettings> {
  constructor(@InjectModel(AnomalySettings.name) model: Model<AnomalySettings>) {
    super(model);
  }

  /**
   * The tenants that imported data since `since`: the daily run's list. The one query of this
   * feature across tenants (a scan of one small record per tenant), made by the daily timer.
   */
  tenantsImportedSince(since: Date): Promise<string[]> {
    return this.model
      .distinct('tenantId', { lastImportAt: { $gte: since } })
      .setOptions(this.limits('read'))
      .exec() as Promise<string[]>;
  }
}
