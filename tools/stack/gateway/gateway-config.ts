import * as path from 'node:path';

/** The routing table shared with docker-compose's gateway, relative to the repository root. */
export const ROUTES_FILE = path.join('deploy', 'gateway', 'routes.conf');

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
   * Each costasset instance's `HTTP_MAX_HEAVY_IN_FLIGHT`: the gateway passes at most this many
   * heavy requests to one instance at once (`max_conns` of the `costasset_heavy` upstream) and
   * refuses the next one itself.
   */
  maxHeavyInFlight: number;
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

/**
 * The same costasset instances for the heavy routes (deploy/gateway/routes.conf), each passed at
 * most `maxHeavyInFlight` of them at once: with every instance at its bound nginx has no server
 * left and the routing table answers 503 SERVER_BUSY itself. `max_fails=0`: an instance that
 * fails to connect is never set aside, so "no server left" always means "all busy", never "down"
 * (a down instance answers 503 SERVICE_UNAVAILABLE). Also in deploy/gateway/nginx.conf.
 */
function heavyUpstreamBlock(servers: string[], maxHeavyInFlight: number): string[] {
  if (!Number.isInteger(maxHeavyInFlight) || maxHeavyInFlight < 1)
    throw new Error(`the heavy bound must be a positive integer, not ${maxHeavyInFlight}`);
  return upstreamBlock('costasset_heavy', servers, ` max_conns=${maxHeavyInFlight} max_fails=0`);
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
    // buffered: under load the gateway refuses heavy requests by the thousand a second
    `  access_log ${input.accessLog ? `${quoted(input.accessLog)} combined buffer=64k flush=1s` : 'off'};`,
    '  server_tokens off;',
    `  client_body_temp_path ${run('client_body')};`,
    `  proxy_temp_path ${run('proxy')};`,
    ...input.tempPathModules.map((name) => `  ${name}_temp_path ${run(name)};`),
    '',
    ...upstreamBlock('authz', input.upstreams.authz),
    ...upstreamBlock('costasset', input.upstreams.costasset),
    ...heavyUpstreamBlock(input.upstreams.costasset, input.maxHeavyInFlight),
    '',
    '  server {',
    `    listen ${listen};`,
    `    include ${quoted(path.join(input.repoRoot, ROUTES_FILE))};`,
    '  }',
    '}',
    '',
  ].join('\n');
}
