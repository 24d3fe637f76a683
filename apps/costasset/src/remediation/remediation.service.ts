import { Injectable } from '@nestjs/common';
import { ProblemException } from '@lib/core';
import { MessageBus } from '@lib/messaging';
import { CurrencyConverter } from '../currency/currency-converter';
import { UNCATEGORIZED } from '../imports/map/cost-row';
import { ProviderMetadataLookup, ProviderMetadataSnapshot } from '../provider-metadata/provider-metadata.lookup';
import { RollupsService } from '../rollups/rollups.service';
import { RemediateRequest, RemediateResponse, RemediationTask, TaskResult } from './dto/remediate.dto';
import { costUpdate, locationUpdate } from './line-item-mapping';
import { BulkUpdate, RemediationRepository } from './remediation.repository';

type Scope = Record<string, unknown>;

/**
 * Re-applies the current provider metadata and exchange rates to stored line items: one
 * `updateMany` per distinct key (provider and asset type, provider and region, billing
 * currency), sent in one bulk write per task.
 */
@Injectable()
export class RemediationService {
  constructor(
    private readonly lineItems: RemediationRepository,
    private readonly metadata: ProviderMetadataLookup,
    private readonly currency: CurrencyConverter,
    private readonly bus: MessageBus,
    private readonly rollups: RollupsService,
  ) {}

  async remediate(tenantId: string, body: RemediateRequest): Promise<RemediateResponse> {
    if (body.periodFrom && body.periodTo && body.periodFrom > body.periodTo) {
      throw new ProblemException(400, 'REMEDIATION_PERIODS_INVALID', 'periodFrom must not be after periodTo');
    }
    const scope = this.scope(body);
    const snapshots = new Map<string, Promise<ProviderMetadataSnapshot>>();
    const snapshot = (providerName: string) => {
      if (!snapshots.has(providerName)) snapshots.set(providerName, this.metadata.snapshot(tenantId, providerName));
      return snapshots.get(providerName) as Promise<ProviderMetadataSnapshot>;
    };
    const tasks: Partial<Record<RemediationTask, TaskResult>> = {};
    await this.rollups.around(tenantId, scope, async () => {
      for (const task of body.tasks) {
        if (task === 'serviceCategory') tasks.serviceCategory = await this.categories(tenantId, scope, snapshot);
        if (task === 'location') tasks.location = await this.locations(tenantId, scope, snapshot);
        if (task === 'currency') tasks.currency = await this.costs(tenantId, scope);
      }
    });
    if (Object.values(tasks).some((result) => result.modified > 0)) {
      const periods = await this.lineItems.aggregate<{ _id: string }>(tenantId, [{ $match: scope }, { $group: { _id: '$period' } }]);
      await this.bus.publish('costasset.lineitems.changed', {
        tenantId,
        periods: periods.map((row) => row._id).filter(Boolean),
        reason: 'remediation',
      });
    }
    return { tasks };
  }

  private scope(body: RemediateRequest): Scope {
    const scope: Scope = {};
    if (body.providerName) scope.providerName = body.providerName;
    if (body.periodFrom || body.periodTo) {
      scope.period = { ...(body.periodFrom ? { $gte: body.periodFrom } : {}), ...(body.periodTo ? { $lte: body.periodTo } : {}) };
    }
    return scope;
  }

  private async keys<K extends string>(tenantId: string, scope: Scope, fields: K[]): Promise<Record<K, string | null>[]> {
    const id = Object.fromEntries(fields.map((field) => [field, `$${field}`]));
    const rows = await this.lineItems.aggregate<{ _id: Record<K, string | null> }>(tenantId, [{ $match: scope }, { $group: { _id: id } }]);
    return rows.map((row) => row._id);
  }

  /** The rule enrichment and the FOCUS import apply: mapping of the asset type, else of the service name, else FOCUS ServiceCategory. */
  private async categories(
    tenantId: string,
    scope: Scope,
    snapshot: (provider: string) => Promise<ProviderMetadataSnapshot>,
  ): Promise<TaskResult> {
    const updates: BulkUpdate[] = [];
    for (const key of await this.keys(tenantId, scope, ['providerName', 'assetType', 'serviceName', 'serviceCategory'])) {
      if (!key.providerName) continue;
      const categories = (await snapshot(key.providerName)).categoriesByAssetType;
      const mapped = (key.assetType && categories.get(key.assetType)) || (key.serviceName && categories.get(key.serviceName)) || undefined;
      updates.push({
        filter: {
          ...scope,
          providerName: key.providerName,
          assetType: key.assetType ?? null,
          serviceName: key.serviceName ?? null,
          serviceCategory: key.serviceCategory ?? null,
        },
        update: { $set: { category: mapped || key.serviceCategory || UNCATEGORIZED } },
      });
    }
    return this.lineItems.updateManyInBulk(tenantId, updates);
  }

  private async locations(
    tenantId: string,
    scope: Scope,
    snapshot: (provider: string) => Promise<ProviderMetadataSnapshot>,
  ): Promise<TaskResult> {
    const updates: BulkUpdate[] = [];
    for (const key of await this.keys(tenantId, scope, ['providerName', 'region'])) {
      if (!key.providerName) continue;
      const mapping = key.region ? (await snapshot(key.providerName)).locationsByRegion.get(key.region) : undefined;
      updates.push({ filter: { ...scope, providerName: key.providerName, region: key.region ?? null }, update: locationUpdate(mapping) });
    }
    return this.lineItems.updateManyInBulk(tenantId, updates);
  }

  private async costs(tenantId: string, scope: Scope): Promise<TaskResult> {
    const conversion = await this.currency.conversionFor(tenantId);
    const updates: BulkUpdate[] = [];
    const skippedCurrencies: string[] = [];
    for (const key of await this.keys(tenantId, scope, ['billingCurrency'])) {
      const rate = key.billingCurrency ? conversion.rateOf(key.billingCurrency) : undefined;
      if (rate === undefined) {
        if (key.billingCurrency) skippedCurrencies.push(key.billingCurrency);
        continue;
      }
      updates.push({
        filter: { ...scope, billingCurrency: key.billingCurrency, billedCost: { $type: 'number' } },
        update: costUpdate(rate, conversion.corporateCurrency),
      });
    }
    const counts = await this.lineItems.updateManyInBulk(tenantId, updates);
    return skippedCurrencies.length ? { ...counts, skippedCurrencies } : counts;
  }
}
