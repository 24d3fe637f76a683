import { AdmissionBounds, admissionBoundsOf } from '@lib/config';
import { reachableHost } from '../stack/gateway';
import type { GatewayUpstreams } from '../stack/gateway';

export const DEFAULT_PORTS = { authz: 3001, costasset: 3002, gateway: 8080 } as const;
/** The local OTLP/HTTP receiver of `npm start -- --traces` (OTLP's usual HTTP port); TRACES_PORT changes it. */
export const DEFAULT_TRACES_PORT = 4318;

const PORT_VARIABLES = { authz: 'AUTHZ_PORT', costasset: 'COSTASSET_PORT', gateway: 'GATEWAY_PORT' } as const;

export type PortName = keyof typeof PORT_VARIABLES;

/** What `npm start` runs, derived once from the environment and the command line. */
export interface StartPlan {
  /** Address the services and the gateway bind (HOST, default 127.0.0.1). */
  host: string;
  ports: Record<PortName, number>;
  /** The one base URL users and the banner use. */
  gatewayUrl: string;
  /** Each service itself, for the banner's "direct" line. */
  serviceUrls: { authz: string; costasset: string };
  upstreams: GatewayUpstreams;
  /** The services' HTTP_MAX_IN_FLIGHT and HTTP_MAX_HEAVY_IN_FLIGHT: the gateway passes an instance no more requests at once. */
  admission: AdmissionBounds;
  /** The environment both services start with (their own variables are read from it). */
  serviceEnv: NodeJS.ProcessEnv;
  /** Show the services' full logs in the terminal (`--verbose`, or LOG_LEVEL set). */
  verbose: boolean;
  /** `--traces`: the local OTLP receiver the services export to (tools/traces). */
  traces?: { port: number; url: string };
}

export class StartError extends Error {}

function portOf(name: PortName, env: NodeJS.ProcessEnv): number {
  const raw = env[PORT_VARIABLES[name]];
  if (raw === undefined || raw === '') return DEFAULT_PORTS[name];
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new StartError(`${PORT_VARIABLES[name]}='${raw}' is not a port number`);
  return port;
}

export const portVariable = (name: PortName) => PORT_VARIABLES[name];

/**
 * AUTHZ_PORT, COSTASSET_PORT, GATEWAY_PORT and HOST reach everything that depends on them: each
 * service's own port, costasset's JWKS URL (derived from AUTHZ_PORT unless AUTHZ_JWKS_URL is
 * set), the gateway's upstreams and address, the console links in messages, and the banner.
 */
export function startPlan(env: NodeJS.ProcessEnv, args: string[], stackEnv: object = {}): StartPlan {
  const unknown = args.filter((arg) => arg !== '--verbose' && arg !== '-v' && arg !== '--traces');
  if (unknown.length > 0) throw new StartError(`unknown argument ${unknown.join(' ')} (npm start [-- --verbose] [--traces])`);
  const traces = args.includes('--traces') ? tracesOf(env) : undefined;
  const ports = { authz: portOf('authz', env), costasset: portOf('costasset', env), gateway: portOf('gateway', env) };
  const clash = (Object.keys(ports) as PortName[]).find((a) =>
    (Object.keys(ports) as PortName[]).some((b) => a < b && ports[a] === ports[b]),
  );
  if (clash) throw new StartError(`${PORT_VARIABLES[clash]} is the same port as another service (${ports[clash]})`);
  const host = env.HOST || '127.0.0.1';
  const reachable = reachableHost(host);
  const gatewayUrl = `http://${reachable}:${ports.gateway}`;
  const serviceEnv: NodeJS.ProcessEnv = {
    ...env,
    ...stackEnv,
    HOST: host,
    // the console's address: messages (budget alerts, anomalies) link to its views
    PUBLIC_BASE_URL: env.PUBLIC_BASE_URL || gatewayUrl,
    AUTHZ_PORT: String(ports.authz),
    COSTASSET_PORT: String(ports.costasset),
    BOOTSTRAP_TENANTS: env.BOOTSTRAP_TENANTS ?? 'default',
    // A bounded old space makes V8 collect instead of growing: enrichment streams, so 256 MB is ample.
    NODE_OPTIONS: env.NODE_OPTIONS ?? '--max-old-space-size=256',
    ...(traces ? { OTEL_EXPORTER_OTLP_ENDPOINT: traces.url } : {}),
  };
  return {
    host,
    ports,
    gatewayUrl,
    serviceUrls: { authz: `http://${reachable}:${ports.authz}`, costasset: `http://${reachable}:${ports.costasset}` },
    upstreams: { authz: [`${reachable}:${ports.authz}`], costasset: [`${reachable}:${ports.costasset}`] },
    admission: admissionBoundsOf(serviceEnv),
    serviceEnv,
    verbose: args.some((arg) => arg === '--verbose' || arg === '-v') || (env.LOG_LEVEL !== undefined && env.LOG_LEVEL !== ''),
    ...(traces ? { traces } : {}),
  };
}

function tracesOf(env: NodeJS.ProcessEnv): { port: number; url: string } {
  const raw = env.TRACES_PORT;
  const port = raw === undefined || raw === '' ? DEFAULT_TRACES_PORT : Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new StartError(`TRACES_PORT='${raw}' is not a port number`);
  return { port, url: `http://127.0.0.1:${port}` };
}
