import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { CurrencyConversion, CurrencyConverter } from '../../currency/currency-converter';
import { ProviderMetadataLookup, ProviderMetadataSnapshot } from '../../provider-metadata/provider-metadata.lookup';

/**
 * The two ports enrichment reads, resolved from the application when a job runs, so that the
 * service still starts while a port's module is not wired in (the job then fails with a reason).
 */
@Injectable()
export class ImportReferenceData {
  constructor(private readonly moduleRef: ModuleRef) {}

  conversion(tenantId: string): Promise<CurrencyConversion> {
    return this.port(CurrencyConverter, 'currency conversion').conversionFor(tenantId);
  }

  metadata(tenantId: string, providerName: string): Promise<ProviderMetadataSnapshot> {
    return this.port(ProviderMetadataLookup, 'provider metadata').snapshot(tenantId, providerName);
  }

  private port<T>(token: abstract new (...args: never[]) => T, what: string): T {
    try {
      return this.moduleRef.get(token, { strict: false });
    } catch {
      throw new Error(`${what} is not available in this service`);
    }
  }
}
