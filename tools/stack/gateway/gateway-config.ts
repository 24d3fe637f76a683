import * as path from 'node:path';
import type { AdmissionBounds } from '@lib/config';

/** The routing table shared with docker-compose's gateway, relative to the repository root. */
export const ROUTES_FILE = path.join('deploy', 'gateway', 'routes.conf');
/** The gateway's W3C trace context (passed on, or started) and its access log format, shared with docker-compose's gateway. */
export const TRACING_FILE = path.join('deploy', 'gateway', 'tracing.conf');

/** `host:port` of each instance of a service; several instances are served round robin. */
export interface GatewayUpstreams {
  authz: string[];
  costasset: string[];
}

export interface GatewayConfigInput {
  /** Address and port the gateway listens on. */
  host: string;
  port: number;
  upstreams: GatewayUpstreams;
  /**
   * Each instance's `HTTP_MAX_IN_FLIGHT` and `HTTP_MAX_HEAVY_IN_FLIGHT` (`admissionBoundsOf` of the
   * services' environment): the gateway passes no more requests than these to one instance at once
   * (`max_conns`, see `upstreamBounds`) and refuses the next one itself.
   */
  admission: AdmissionBounds;
  /** nginx's prefix: relative paths of the routing table (web root, docs) resolve against it. */
  repoRoot: string;
  /** Where the pid file and nginx's temporary files live. */
  runDir: string;
  errorLog: string;
  /** Access log file; none when undefined. */
  accessLog?: string;
  /** Modules compiled into this nginx whose temporary paths must be moved out of /var/lib/nginx. */
  tempPathModules: TempPathModule[];
  /** Debian's MIME types file, when installed. */
  mimeTypesFile?: string;
  /** When the master runs as root, its workers run as this user (so they can read the repository). */
  workerUser?: string;
  /** The object store's URL: the console's Content-Security-Policy lets it PUT pre-signed uploads to its origin. */
  objectStoreUrl?: string;
  /** The share (0–100) of the traces the gateway starts that are marked sampled (`traceSampledPercentOf`); 100 by default. */
  traceSampledPercent?: number;
  /**
   * `host:port` of the local OTLP receiver of `npm start -- --traces` (tools/traces): its recent traces are
   * proxied at `/local-traces/` for the console's Traces page, to local clients only; no such location without it.
   */
  tracesUpstream?: string;
}

export type TempPathModule = 'fastcgi' | 'uwsgi' | 'scgi';

const OPTIONAL_TEMP_MODULES: TempPathModule[] = ['fastcgi', 'uwsgi', 'scgi'];

/** The modules of `nginx -V`'s output that keep a temporary path (all, unless built `--without-…`). */
export function tempPathModulesOf(versionOutput: string): TempPathModule[] {
  return OPTIONAL_TEMP_MODULES.filter((name) => !versionOutput.includes(`--without-http_${name}_module`));
}

function quoted(value: string): string {
  return `"${value.replace(/(["\\])/g, '\\$1')}"`;
}

/**
 * Idle connections to the services that nginx keeps for reuse. Enough for every client of a busy
 * gateway (with fewer, each request beyond them opens and closes a TCP connection to the service:
 * under load the service's accept queue overflows and requests wait for SYN retransmissions,
 * seconds, even for a refusal). Closed after 4 s idle, before Node's own 5 s keep-alive time-out,
 * so nginx never sends a request on a connection the service is closing. Also in
 * deploy/gateway/nginx.conf.
 */
export const UPSTREAM_KEEPALIVE = ['keepalive 256;', 'keepalive_timeout 4s;'];

function upstreamBlock(name: string, servers: string[], serverParameters = ''): string[] {
  if (servers.length === 0) throw new Error(`the gateway needs at least one ${name} server`);
  return [
    `  upstream ${name} {`,
    ...servers.map((server) => `    server ${server}${serverParameters};`),
    ...UPSTREAM_KEEPALIVE.map((line) => `    ${line}`),
    '  }',
  ];
}

/** `max_conns`: at most this many requests of this upstream on one server at once. */
const bounded = (bound: number) => ` max_conns=${bound} max_fails=0`;

/**
 * The upstreams of deploy/gateway/routes.conf (also in deploy/gateway/nginx.conf). Each instance
 * is passed at most as many requests at once as it admits itself, so that the gateway refuses the
 * excess in microseconds instead of the instance after a wait in its queue: `authz` at most
 * HTTP_MAX_IN_FLIGHT; `costasset_heavy` (its heavy routes) at most HTTP_MAX_HEAVY_IN_FLIGHT and
 * `costasset` (the rest) the remainder of HTTP_MAX_IN_FLIGHT, so that together they never exceed
 * it (at least 1). With every instance at its bound nginx has no server left and the routing table
 * answers 503 SERVER_BUSY itself. `max_fails=0`: an instance that fails to connect is never set
 * aside, so "no server left" always means "all busy" (a down instance answers 503
 * SERVICE_UNAVAILABLE). `authz_always` and `costasset_always`, unbounded, serve what the services
 * never refuse (health, the key set, token refresh).
 */
export function upstreamBounds(admission: AdmissionBounds): { authz: number; costasset: number; costasset_heavy: number } {
  const { maxInFlight, maxHeavyInFlight } = admission;
  for (const [name, bound] of Object.entries({ maxInFlight, maxHeavyInFlight }))
    if (!Number.isInteger(bound) || bound < 1) throw new Error(`the gateway's ${name} must be a positive integer, not ${bound}`);
  if (maxHeavyInFlight > maxInFlight) throw new Error('the heavy bound must not be greater than the bound of all requests');
  return { authz: maxInFlight, costasset: Math.max(1, maxInFlight - maxHeavyInFlight), costasset_heavy: maxHeavyInFlight };
}

function boundedUpstreams(upstreams: GatewayUpstreams, admission: AdmissionBounds): string[] {
  const bounds = upstreamBounds(admission);
  return [
    ...upstreamBlock('authz', upstreams.authz, bounded(bounds.authz)),
    ...upstreamBlock('authz_always', upstreams.authz),
    ...upstreamBlock('costasset', upstreams.costasset, bounded(bounds.costasset)),
    ...upstreamBlock('costasset_heavy', upstreams.costasset, bounded(bounds.costasset_heavy)),
    ...upstreamBlock('costasset_always', upstreams.costasset),
  ];
}

/**
 * `$object_store_origin` of the routing table: the one origin besides the console's own that the
 * console may connect to (its uploads go to pre-signed object-store URLs); none without a URL.
 */
export function objectStoreOriginLine(objectStoreUrl: string | undefined): string {
  const origin = objectStoreUrl ? new URL(objectStoreUrl).origin : '';
  return `set $object_store_origin ${quoted(origin)};`;
}

/**
 * The share of new traces to mark sampled, from the services' `OTEL_TRACES_SAMPLER` and
 * `OTEL_TRACES_SAMPLER_ARG`: the gateway starts the traces of requests that come without one, so it
 * takes the root sampling decision that a ratio sampler would take in the service.
 */
export function traceSampledPercentOf(env: NodeJS.ProcessEnv): number {
  const sampler = env.OTEL_TRACES_SAMPLER ?? 'parentbased_always_on';
  if (sampler.endsWith('always_off')) return 0;
  if (!sampler.endsWith('traceidratio')) return 100;
  const ratio = Number(env.OTEL_TRACES_SAMPLER_ARG ?? '1');
  return Number.isFinite(ratio) ? Math.min(100, Math.max(0, ratio * 100)) : 100;
}

/** `$corelite_trace_sampled` of deploy/gateway/tracing.conf: "01" for `percent` % of the new traces, "00" for the rest. */
export function traceSamplingLine(percent = 100): string {
  const share = Math.round(Math.min(100, Math.max(0, percent)) * 100) / 100;
  if (share >= 100) return 'split_clients "$request_id" $corelite_trace_sampled { * 01; }';
  if (share <= 0) return 'split_clients "$request_id" $corelite_trace_sampled { * 00; }';
  return `split_clients "$request_id" $corelite_trace_sampled { ${share}% 01; * 00; }`;
}

/** `location /local-traces/`, the local OTLP receiver's read side (`GET /v1/traces/…`), for clients on this machine only. */
export function tracesLocation(upstream: string | undefined): string[] {
  if (!upstream) return [];
  if (!/^[\w.-]+:\d+$|^\[[\da-f:]+\]:\d+$/i.test(upstream)) throw new Error(`the traces upstream must be host:port, not ${upstream}`);
  return [
    '    location /local-traces/ {',
    '      allow 127.0.0.1;',
    '      allow ::1;',
    '      deny all;',
    `      proxy_pass http://${upstream}/v1/traces/;`,
    '    }',
  ];
}

/** A complete nginx.conf for an unprivileged local gateway: everything it writes stays in `runDir`. */
export function renderGatewayConfig(input: GatewayConfigInput): string {
  const run = (name: string) => quoted(path.join(input.runDir, name));
  const listen = input.host.includes(':') ? `[${input.host}]:${input.port}` : `${input.host}:${input.port}`;
  return [
    '# Written by tools/stack/gateway on every start; the routes are in deploy/gateway/routes.conf.',
    'daemon off;',
    'worker_processes 1;',
    ...(input.workerUser ? [`user ${input.workerUser};`] : []),
    `pid ${run('nginx.pid')};`,
    `error_log ${quoted(input.errorLog)} warn;`,
    '',
    'events {',
    '  worker_connections 1024;',
    '}',
    '',
    'http {',
    ...(input.mimeTypesFile
      ? [`  include ${quoted(input.mimeTypesFile)};`]
      : ['  types { text/html html; text/css css; application/javascript js; application/json json; image/svg+xml svg; }']),
    '  default_type application/octet-stream;',
    `  ${traceSamplingLine(input.traceSampledPercent)}`,
    `  include ${quoted(path.join(input.repoRoot, TRACING_FILE))};`,
    // buffered: under load the gateway refuses heavy requests by the thousand a second
    `  access_log ${input.accessLog ? `${quoted(input.accessLog)} corelite_trace buffer=64k flush=1s` : 'off'};`,
    '  server_tokens off;',
    `  client_body_temp_path ${run('client_body')};`,
    `  proxy_temp_path ${run('proxy')};`,
    ...input.tempPathModules.map((name) => `  ${name}_temp_path ${run(name)};`),
    '',
    ...boundedUpstreams(input.upstreams, input.admission),
    '',
    '  server {',
    `    listen ${listen};`,
    `    ${objectStoreOriginLine(input.objectStoreUrl)}`,
    ...tracesLocation(input.tracesUpstream),
    `    include ${quoted(path.join(input.repoRoot, ROUTES_FILE))};`,
    '  }',
    '}',
    '',
  ].join('\n');
}
