import type { ClassConstructor } from 'class-transformer';
import { AuthzEnvironment } from '../../apps/authz/src/authz.environment';
import { CostassetEnvironment } from '../../apps/costasset/src/costasset.environment';
import { EnvironmentError, loadEnvironment } from '@lib/config';

export type ServiceName = 'authz' | 'costasset';

export const ENVIRONMENTS: Record<ServiceName, ClassConstructor<object>> = { authz: AuthzEnvironment, costasset: CostassetEnvironment };

/**
 * Required in production but checked when they are used rather than by the environment's class:
 * the signing key (libs/auth/src/signing-key.ts), the migration and notifications sealers' keys
 * (libs/config/src/secrets/secret-key.ts), and costasset's JWKS URL, which otherwise points at an
 * authz on the same machine (CostassetEnvironment.jwksUrl).
 */
const CHECKED_AT_USE: Record<ServiceName, string[]> = {
  authz: ['JWT_PRIVATE_KEY'],
  costasset: ['MIGRATION_ENCRYPTION_KEY', 'NOTIFICATIONS_ENCRYPTION_KEY', 'CONNECTIONS_ENCRYPTION_KEY', 'AUTHZ_JWKS_URL'],
};

const PORT: Record<ServiceName, string> = { authz: 'AUTHZ_PORT', costasset: 'COSTASSET_PORT' };

/** Defaults that only fit the local stack (a loopback address, s3rver's keys): a deployment must set them. */
function localStackDefaults(service: ServiceName): string[] {
  const defaults = new (ENVIRONMENTS[service] as new () => Record<string, unknown>)();
  return Object.entries(defaults)
    .filter(([, value]) => typeof value === 'string' && /127\.0\.0\.1|localhost|^S3RVER$/.test(value))
    .map(([name]) => name);
}

/** What the environment's class refuses in production when nothing is set. */
function requiredInProduction(service: ServiceName): string[] {
  try {
    loadEnvironment(ENVIRONMENTS[service], { NODE_ENV: 'production' });
    return [];
  } catch (error) {
    if (!(error instanceof EnvironmentError)) throw error;
    return [...new Set(error.problems.map((problem) => problem.split(':')[0]))];
  }
}

/** Every variable a deployment of `service` must set, found from the service's own code. */
export function requiredVariables(service: ServiceName): string[] {
  return [
    ...new Set([...requiredInProduction(service), ...CHECKED_AT_USE[service], ...localStackDefaults(service), PORT[service], 'NODE_ENV']),
  ].sort();
}

/** A value of the right shape for a secret that a deployment reads from elsewhere (`.env`, a Secret). */
export function sampleSecret(name: string): string {
  return /ENCRYPTION_KEY$/.test(name) ? Buffer.alloc(32, 7).toString('base64') : 'a1b2c3d4e5f60718';
}

/** The problems the service would report at start with this environment (none: it starts). */
export function environmentProblems(service: ServiceName, environment: Record<string, string>): string[] {
  try {
    loadEnvironment(ENVIRONMENTS[service], environment);
    return [];
  } catch (error) {
    if (error instanceof EnvironmentError) return error.problems;
    throw error;
  }
}
