import { Injectable } from '@nestjs/common';
import type { Principal } from '@lib/auth';
import type { Paged } from '@lib/core';
import { VisibilityService } from '../resource-groups/visibility.service';
import { AnomalyProblems } from './anomalies.problems';
import { AnomalySettingsService } from './anomaly-settings.service';
import { anomalyVisibility } from './anomaly-visibility';
import { AnomalyRepository } from './anomaly.repository';
import { AnomalyDto, AnomalySettingsRequest, AnomalySettingsResponse, ListAnomaliesQuery } from './dto/anomaly.dto';
import type { Anomaly, AnomalyStatus } from './schemas/anomaly.schema';

const DEFAULT_LIMIT = 50;

function toDto(anomaly: Anomaly & { _id: unknown }): AnomalyDto {
  return {
    id: String(anomaly._id),
    dimensions: anomaly.dimensions,
    day: anomaly.day,
    expected: anomaly.expected,
    actual: anomaly.actual,
    impact: anomaly.impact,
    score: anomaly.score,
    status: anomaly.status,
    detectionRunId: anomaly.detectionRunId,
    createdAt: anomaly.createdAt!,
    updatedAt: anomaly.updatedAt!,
  };
}

/** Anomalies as people see and triage them, within their visibility (docs/anomalies.md). */
@Injectable()
export class AnomaliesService {
  constructor(
    private readonly anomalies: AnomalyRepository,
    private readonly visibility: VisibilityService,
    private readonly settings: AnomalySettingsService,
  ) {}

  private async visibleTo(principal: Principal): Promise<Record<string, unknown>> {
    return anomalyVisibility(await this.visibility.filterFor(principal));
  }

  async list(principal: Principal, query: ListAnomaliesQuery): Promise<Paged<AnomalyDto>> {
    if (query.from !== undefined && query.to !== undefined && query.to < query.from)
      throw AnomalyProblems.range(`to (${query.to}) is before from (${query.from})`);
    const day: Record<string, string> = {};
    if (query.from !== undefined) day.$gte = query.from;
    if (query.to !== undefined) day.$lte = query.to;
    const filter: Record<string, unknown> = {
      ...(Object.keys(day).length ? { day } : {}),
      ...(query.status ? { status: query.status } : {}),
    };
    const visible = await this.visibleTo(principal);
    const where = Object.keys(visible).length ? { $and: [filter, visible] } : filter;
    const page = await this.anomalies.page(principal.tenantId, where, query.limit ?? DEFAULT_LIMIT, query.cursor, 'newest');
    return { items: page.items.map(toDto), nextCursor: page.nextCursor };
  }

  /** Acknowledges, dismisses or re-opens an anomaly the caller sees; one it does not see answers 404. */
  async setStatus(principal: Principal, id: string, status: AnomalyStatus): Promise<AnomalyDto> {
    const found = await this.anomalies.findById(principal.tenantId, id);
    const visible = await this.visibleTo(principal);
    if (!found) throw AnomalyProblems.notFound(id);
    const mine = { $and: [{ _id: found._id }, visible] };
    const updated = await this.anomalies.findOneAndUpdate(principal.tenantId, mine, { $set: { status } });
    if (!updated) throw AnomalyProblems.notFound(id);
    return toDto(updated);
  }

  async getSettings(tenantId: string): Promise<AnomalySettingsResponse> {
    const { minImpact, minImpactRatio, minScore, windowDays, minHistoryDays } = await this.settings.parameters(tenantId);
    return { minImpact, minImpactRatio, minScore, windowDays, minHistoryDays };
  }

  async replaceSettings(tenantId: string, request: AnomalySettingsRequest): Promise<AnomalySettingsResponse> {
    await this.settings.replace(tenantId, request);
    return this.getSettings(tenantId);
  }
}
