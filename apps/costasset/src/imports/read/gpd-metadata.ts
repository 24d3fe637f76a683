import { parse } from 'yaml';

export interface GpdMetadata {
  providerName: string;
  providerCode: string;
  currency: string;
}

/** Parses provider_metadata.yml; answers the problems instead of throwing. */
export function parseMetadata(text: string): GpdMetadata | string {
  let parsed: unknown;
  try {
    parsed = parse(text, { maxAliasCount: 10 });
  } catch {
    return 'provider_metadata.yml is not valid YAML';
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return 'provider_metadata.yml must be a mapping';
  const { providerName, providerCode, currency } = parsed as Record<string, unknown>;
  const missing = Object.entries({ providerName, providerCode, currency })
    .filter(([, value]) => typeof value !== 'string' || value.trim() === '')
    .map(([name]) => name);
  if (missing.length > 0) return `provider_metadata.yml lacks ${missing.join(', ')}`;
  if (!/^[A-Z]{3}$/.test(currency as string)) return `provider_metadata.yml: currency "${String(currency)}" is not an ISO 4217 code`;
  return { providerName: (providerName as string).trim(), providerCode: (providerCode as string).trim(), currency: currency as string };
}
