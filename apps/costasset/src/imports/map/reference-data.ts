import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { CurrencyConversion, CurrencyConverter } from '../../currency/currency-converter';
import { ProviderMetadataLookup, ProviderMetadataSnapshot } from '../../provider-metadata/provider-metadata.lookup';
import { DiscoveryGate } from '../rules/discovery-gate';
import { ProviderCache } from './provider-cache';

/**
 * What the map stage reads besides the rows: currency conversion and provider metadata (two ports
 * resolved from the application when a job runs, so that the service still starts while a port's
 * module is not wired in: the job then fails with a reason), and the COMMON_DISCOVERY gate.
 */
@Injectable()
export class ImportReferenceData {
  constructor(
    private readonly moduleRef: ModuleRef,
    private readonly gate: DiscoveryGate,
  ) {}

  conversion(tenantId: string): Promise<CurrencyConversion> {
    return this.port(CurrencyConverter, 'currency conversion').conversionFor(tenantId);
  }

  metadata(tenantId: string, providerName: string): Promise<ProviderMetadataSnapshot> {
    return this.port(ProviderMetadataLookup, 'provider metadata').snapshot(tenantId, providerName);
  }

  /** GPD: refuses (PermanentJobError) a provider COMMON_DISCOVERY does not support. */
  assertIngestible(tenantId: string, providerName: string, providerCode: string): Promise<void> {
    return this.gate.assertIngestible(tenantId, providerName, providerCode);
  }

  /** FOCUS: the gate and the metadata of each provider of the rows, looked up once per provider. */
  providers(tenantId: string): ProviderCache {
    return new ProviderCache(
      (providerName) => this.gate.refusalFor(tenantId, providerName),
      (providerName) => this.metadata(tenantId, providerName),
    );
  }

  private port<T>(token: abstract new (...args: never[]) => T, what: string): T {
    try {
      return this.moduleRef.get(token, { strict: false });
    } catch {
      throw new Error(`${what} is not available in this service`);
    }
  }
}
