import { Injectable } from '@nestjs/common';
import { CoreSettingsClient } from '../../feature-flags/core-settings.client';
import { PermanentJobError } from '../../jobs/job-handler';

/**
 * docs/gpd-format.md#provider_metadatayml: while `COMMON_DISCOVERY` is on, only providers listed in `SUPPORTED_CD_PROVIDERS`
 * (lowercase identifiers) are ingested; the data of any other provider is refused and the job
 * says why. Read through the cached core settings, so a flip in the core applies to the next job.
 */
@Injectable()
export class DiscoveryGate {
  constructor(private readonly settings: CoreSettingsClient) {}

  async assertIngestible(tenantId: string, providerName: string, providerCode: string): Promise<void> {
    if (!(await this.settings.isEnabled(tenantId, 'COMMON_DISCOVERY'))) return;
    const supported = await this.settings.listValue(tenantId, 'SUPPORTED_CD_PROVIDERS');
    if (supported.includes(providerName.toLowerCase()) || supported.includes(providerCode.toLowerCase())) return;
    const reason =
      `COMMON_DISCOVERY is on and provider "${providerName}" is not in ` +
      `SUPPORTED_CD_PROVIDERS (${supported.join(', ') || 'empty'}): its data is not ingested`;
    throw new PermanentJobError(reason, { errors: [{ file: '', line: 0, reason }] });
  }

  /** For a FOCUS row's provider (by name alone): why its rows are not imported, or undefined. */
  async refusalFor(tenantId: string, providerName: string): Promise<string | undefined> {
    if (!(await this.settings.isEnabled(tenantId, 'COMMON_DISCOVERY'))) return undefined;
    const supported = await this.settings.listValue(tenantId, 'SUPPORTED_CD_PROVIDERS');
    if (supported.includes(providerName.toLowerCase())) return undefined;
    return `COMMON_DISCOVERY is on and provider "${providerName}" is not in SUPPORTED_CD_PROVIDERS: its rows are not imported`;
  }
}
