import { Injectable, OnModuleInit } from '@nestjs/common';
import { InvalidatingCache, MessageBus } from '@lib/messaging';
import { Metrics } from '@lib/metrics';
import { IdpAuthTypes, type ResolvedAuthType } from '../identity/idp-auth-types';
import { AuthTypeConfigurationRepository } from './auth-type-configuration.repository';
import { IdpMappingRepository } from './idp-mapping.repository';

/** The auth type an IdP has *now*: its mapped configuration, or `internal` when unmapped. */
@Injectable()
export class AuthTypeResolver implements IdpAuthTypes, OnModuleInit {
  private readonly cache: InvalidatingCache<ResolvedAuthType>;

  constructor(
    private readonly mappings: IdpMappingRepository,
    private readonly configurations: AuthTypeConfigurationRepository,
    private readonly bus: MessageBus,
    metrics: Metrics,
  ) {
    this.cache = new InvalidatingCache({ ttlMs: 60_000, maxEntries: 10_000, observer: metrics.cacheObserver('auth-types') });
  }

  onModuleInit(): void {
    void this.bus.subscribe('authz.config.changed', (event) => this.forget(event.tenantId));
  }

  forIdp(tenantId: string, idpId: string): Promise<ResolvedAuthType> {
    return this.cache.getOrLoad(`${tenantId}:${idpId}`, async () => {
      const mapping = await this.mappings.findOne(tenantId, { idp_id: idpId });
      const configuration = mapping ? await this.configurations.findById(tenantId, mapping.auth_type_id) : null;
      if (!configuration) return { authType: 'internal' };
      return { authType: configuration.auth_type, authTypeId: String(configuration._id) };
    });
  }

  /** Called on every local change and on every `authz.config.changed` from another instance. */
  forget(tenantId: string): void {
    this.cache.invalidatePrefix(`${tenantId}:`);
  }
}
