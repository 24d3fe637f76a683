import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import { AddressInfo, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { REPO_ROOT } from '../../tools/stack/settings';
import { runCommand } from '../../tools/stack/process-control';
import { requireProgram } from '../../tools/stack/system-packages';
import { admissionBoundsOf } from '@lib/config';
import { checkGatewayConfig, RunningGateway, startGateway, upstreamBounds } from '../../tools/stack/gateway';
import { eventually, Platform, startPlatform } from '../support/platform';
import { expectProblem } from '../support/problems';

type Service = 'authz' | 'costasset';

/** One operation per prefix of the interface, and the service that must answer it. */
const ONE_PER_PREFIX: { prefix: string; service: Service; method: 'get' | 'post'; path: string; body?: object; status: number }[] = [
  { prefix: '/core/', service: 'authz', method: 'get', path: '/core/authorization/v1/me', status: 200 },
  { prefix: '/authorization/', service: 'authz', method: 'get', path: '/authorization/v2/teams', status: 200 },
  { prefix: '/api/costasset/', service: 'costasset', method: 'get', path: '/api/costasset/v1/currency/defaultCurrency', status: 200 },
  { prefix: '/orc/costasset/', service: 'costasset', method: 'post', path: '/orc/costasset/v1/housekeeping', body: {}, status: 200 },
  {
    prefix: '/insights/',
    service: 'costasset',
    method: 'post',
    path: '/insights/v2/housekeeping/configuration',
    body: { GATEWAY_TEST_FLAG: 'true' },
    status: 200,
  },
];

const OTHER: Record<Service, Service> = { authz: 'costasset', costasset: 'authz' };

async function fakeUpstream(name: string): Promise<{ hostPort: string; close(): void }> {
  const server = http.createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ name, url: req.url }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { hostPort: `127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

/** An instance that holds the requests whose query names `hold` until `release()`, and answers the others at once. */
async function holdingUpstream(name: string) {
  const held: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (new URL(req.url ?? '/', 'http://x').searchParams.has('hold')) held.push(res);
    else res.end(JSON.stringify({ name, url: req.url }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    hostPort: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    held: () => held.length,
    release: () => held.splice(0).forEach((res) => res.end(JSON.stringify({ name }))),
    close: () => server.close(),
  };
}

/** A port nothing listens on. */
async function deadPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** GET `path` is refused by the gateway itself: 503 SERVER_BUSY, `Retry-After: 1`, `Corelite-Refused-By: gateway`. */
async function expectRefusedByGateway(gatewayUrl: string, path: string): Promise<void> {
  const refused = await request(gatewayUrl).get(path);
  expectProblem(refused, 503, 'SERVER_BUSY');
  expect({ path, retryAfter: refused.headers['retry-after'], refusedBy: refused.headers['corelite-refused-by'] }).toEqual({
    path,
    retryAfter: '1',
    refusedBy: 'gateway',
  });
}

const runDir = (name: string) => join(REPO_ROOT, '.stack', process.env.STACK_PROFILE || 'test', 'gateways', `${name}-${process.pid}`);

describe('gateway: one address for every path of the interface', () => {
  let platform: Platform;
  let admin: string;

  beforeAll(async () => {
    platform = await startPlatform();
    admin = await platform.token({ sub: 'admin' });
  });
  afterAll(() => platform.close());

  it('answers on one base URL for both services', () => {
    expect(platform.authz.url).toBe(platform.gateway.url);
    expect(platform.costasset.url).toBe(platform.gateway.url);
    expect(platform.authz.directUrl).not.toBe(platform.costasset.directUrl);
  });

  it.each(ONE_PER_PREFIX)('routes $prefix to $service', async ({ service, method, path, body, status }) => {
    const call = (base: string) => {
      const pending = request(base)[method](path).set('corelite-token', admin);
      return body ? pending.send(body) : pending;
    };
    const through = await call(platform.gateway.url);
    const direct = await call(platform[service].directUrl);
    expect({ path, status: through.status }).toEqual({ path, status });
    expect(through.status).toBe(direct.status);
    expect(Object.keys(through.body).sort()).toEqual(Object.keys(direct.body).sort());
    // the other service does not serve this path: only routing can have brought the answer
    expectProblem(await call(platform[OTHER[service]].directUrl), 404, 'NOT_FOUND');
  });

  it.each(['authz', 'costasset'] as const)('serves the Swagger UI and OpenAPI document of %s under its own path', async (name) => {
    const document = await request(platform.gateway.url).get(`/docs/${name}/openapi.json`).expect(200);
    expect(document.body.info.title).toBe(`corelite ${name}`);
    expect(document.body.servers).toEqual([expect.objectContaining({ url: '/' })]);
    await request(platform.gateway.url).get(`/docs/${name}/openapi.yaml`).expect(200);
    const ui = await request(platform.gateway.url).get(`/docs/${name}`).expect(200);
    expect(ui.text).toContain('Swagger UI');
    await request(platform.gateway.url).get(`/docs/${name}/swagger-ui-init.js`).expect(200);
  });

  it("serves the repository's docs/ folder as text and a page of links at /", async () => {
    const index = await request(platform.gateway.url).get('/docs/').expect(200);
    expect(index.headers['content-type']).toMatch(/^text\/plain/);
    expect(index.text).toBe(readFileSync(join(REPO_ROOT, 'docs', 'README.md'), 'utf8'));
    const format = await request(platform.gateway.url).get('/docs/gpd-format.md').expect(200);
    expect(format.text).toContain('provider_metadata.yml');
    const home = await request(platform.gateway.url).get('/').expect(200);
    expect(home.headers['content-type']).toMatch(/^text\/html/);
    expect(home.text).toContain('/docs/authz');
    await request(platform.gateway.url).get('/health').expect(200, { status: 'ok' });
    await request(platform.gateway.url).get('/health/costasset/ready').expect(200);
  });

  it('passes request ids, token headers and streamed bodies through unchanged', async () => {
    const res = await request(platform.gateway.url)
      .get('/api/costasset/extensions/test')
      .set('corelite-token', admin)
      .set('x-request-id', 'gw-1');
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toBe('gw-1');
    // a body above the service's own limit reaches the service, which answers its own 413
    const huge = await request(platform.gateway.url)
      .post('/core/authorization/v1/token/refresh')
      .send({ refresh_token: 'x'.repeat(2 * 1024 * 1024) });
    expectProblem(huge, 413, 'PAYLOAD_TOO_LARGE');
  });
});

describe('gateway: upstreams, errors and configuration', () => {
  const started: RunningGateway[] = [];
  afterAll(async () => {
    for (const gateway of started) await gateway.stop();
  });

  it('spreads requests over several servers of one service (round robin)', async () => {
    const [a, b, c] = await Promise.all([fakeUpstream('authz-a'), fakeUpstream('authz-b'), fakeUpstream('costasset')]);
    try {
      const gateway = await startGateway({
        port: 0,
        upstreams: { authz: [a.hostPort, b.hostPort], costasset: [c.hostPort] },
        admission: { maxInFlight: 32, maxHeavyInFlight: 4 },
        runDir: runDir('round-robin'),
      });
      started.push(gateway);
      const names: string[] = [];
      for (let i = 0; i < 4; i++) names.push((await request(gateway.url).get('/core/x').expect(200)).body.name);
      expect(names.sort()).toEqual(['authz-a', 'authz-a', 'authz-b', 'authz-b']);
      expect((await request(gateway.url).get('/insights/v2/y').expect(200)).body).toEqual({ name: 'costasset', url: '/insights/v2/y' });
    } finally {
      [a, b, c].forEach((server) => server.close());
    }
  });

  it(
    'passes each costasset instance at most its bound of heavy requests ' + 'and refuses the next one itself; other routes stay served',
    async () => {
      const [a, b, authz] = await Promise.all([holdingUpstream('costasset-a'), holdingUpstream('costasset-b'), fakeUpstream('authz')]);
      try {
        // a third instance is down: heavy requests move on from it, and beside busy ones it does not hide their refusal
        const gateway = await startGateway({
          port: 0,
          upstreams: { authz: [authz.hostPort], costasset: [a.hostPort, `127.0.0.1:${await deadPort()}`, b.hostPort] },
          admission: { maxInFlight: 3, maxHeavyInFlight: 1 },
          runDir: runDir('heavy-bound'),
        });
        started.push(gateway);
        const admitted = [1, 2].map(() => fetch(`${gateway.url}/api/costasset/v1/costLineItems?limit=100&hold`));
        await eventually(async () => expect([a.held(), b.held()]).toEqual([1, 1]), 5_000, 10);
        for (const path of [
          '/api/costasset/v1/costLineItems?hold',
          '/api/costasset/v1/reportModels/m/execution',
          '/api/costasset/V1/COSTS/',
        ])
          await expectRefusedByGateway(gateway.url, path);
        // cheap routes, other methods on a heavy path and the other service are served meanwhile
        await request(gateway.url).get('/api/costasset/v1/jobs').expect(200);
        await request(gateway.url).post('/api/costasset/v1/dataManagement/accounts').expect(200);
        await request(gateway.url).get('/core/authorization/v1/me').expect(200);
        expect([a.held(), b.held()]).toEqual([1, 1]);
        a.release();
        b.release();
        const names = await Promise.all(admitted.map(async (answer) => ((await (await answer).json()) as { name: string }).name));
        expect(names.sort()).toEqual(['costasset-a', 'costasset-b']);
        await request(gateway.url).get('/api/costasset/v1/costs').expect(200);
        // thousands of refusals a second under load: none of them is written to the error log
        expect(readFileSync(gateway.errorLog, 'utf8')).not.toContain('no live upstreams');
      } finally {
        [a, b, authz].forEach((server) => server.close());
      }
    },
  );

  it(
    'passes each instance at most its bound of other requests and refuses ' +
      'the next one itself; health, the key set and token refresh stay served',
    async () => {
      const [authz, costasset] = await Promise.all([holdingUpstream('authz'), holdingUpstream('costasset')]);
      try {
        const gateway = await startGateway({
          port: 0,
          upstreams: { authz: [authz.hostPort], costasset: [costasset.hostPort] },
          admission: { maxInFlight: 3, maxHeavyInFlight: 1 },
          runDir: runDir('bound'),
        });
        started.push(gateway);
        // authz admits 3 requests, costasset 2 besides its heavy one
        const admitted = [
          ...[1, 2, 3].map(() => fetch(`${gateway.url}/core/authorization/v1/me?hold`)),
          ...[1, 2].map(() => fetch(`${gateway.url}/api/costasset/v1/jobs?hold`)),
        ];
        await eventually(async () => expect([authz.held(), costasset.held()]).toEqual([3, 2]), 5_000, 10);
        for (const path of ['/core/authorization/v1/me', '/authorization/v2/teams', '/api/costasset/v1/jobs', '/insights/v2/x'])
          await expectRefusedByGateway(gateway.url, path);
        // what the services never refuse, the gateway does not refuse either; a heavy route has its own bound
        await request(gateway.url).get('/core/authorization/v1/.well-known/jwks.json').expect(200);
        await request(gateway.url).post('/core/authorization/v1/token/refresh').expect(200);
        await request(gateway.url).get('/health/authz/ready').expect(200);
        await request(gateway.url).get('/health/costasset/ready').expect(200);
        await request(gateway.url).get('/api/costasset/v1/costs').expect(200);
        authz.release();
        costasset.release();
        await Promise.all(admitted);
        await request(gateway.url).get('/core/authorization/v1/me').expect(200);
        await request(gateway.url).get('/api/costasset/v1/jobs').expect(200);
        expect(readFileSync(gateway.errorLog, 'utf8')).not.toContain('no live upstreams');
      } finally {
        [authz, costasset].forEach((server) => server.close());
      }
    },
  );

  it("keeps a client's connection beyond a thousand requests (nginx closes it after 1,000 by default)", async () => {
    const upstream = await fakeUpstream('authz');
    try {
      const gateway = await startGateway({
        port: 0,
        upstreams: { authz: [upstream.hostPort], costasset: [upstream.hostPort] },
        admission: { maxInFlight: 32, maxHeavyInFlight: 4 },
        runDir: runDir('keepalive'),
      });
      started.push(gateway);
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const sockets = new Set<unknown>();
      for (let i = 0; i < 1_200; i++) {
        const closes = await new Promise<string | undefined>((resolve, reject) => {
          const req = http.get(`${gateway.url}/core/x`, { agent }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.headers.connection));
          });
          req.on('socket', (socket) => sockets.add(socket));
          req.on('error', reject);
        });
        expect(closes).not.toBe('close');
      }
      agent.destroy();
      expect(sockets.size).toBe(1);
    } finally {
      upstream.close();
    }
  });

  it('answers problem+json when a service is down or a body is larger than any service accepts', async () => {
    const gateway = await startGateway({
      port: 0,
      upstreams: {
        authz: [`127.0.0.1:${await deadPort()}`],
        costasset: [`127.0.0.1:${await deadPort()}`, `127.0.0.1:${await deadPort()}`],
      },
      admission: { maxInFlight: 3, maxHeavyInFlight: 1 },
      runDir: runDir('errors'),
    });
    started.push(gateway);
    expectProblem(await request(gateway.url).get('/core/authorization/v1/me'), 503, 'SERVICE_UNAVAILABLE');
    expectProblem(await request(gateway.url).get('/api/costasset/v1/jobs'), 503, 'SERVICE_UNAVAILABLE');
    // a heavy route whose instances are all down is unavailable, not busy, however often it is asked
    for (let i = 0; i < 3; i++) {
      const heavy = await request(gateway.url).get('/api/costasset/v1/costs');
      expectProblem(heavy, 503, 'SERVICE_UNAVAILABLE');
      expect({ retryAfter: heavy.headers['retry-after'], refusedBy: heavy.headers['corelite-refused-by'] }).toEqual({
        retryAfter: '5',
        refusedBy: undefined,
      });
    }

    // nginx refuses on the Content-Length alone, before any of the body is sent
    const { port } = new URL(gateway.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () =>
        socket.write(`POST /core/x HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\nContent-Length: ${65 * 1024 * 1024}\r\n\r\n{`),
      );
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString();
        if (text.includes('}')) {
          socket.destroy();
          resolve(text);
        }
      });
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 413/);
    expect(answer).toContain('application/problem+json');
    expect(answer).toContain('"code":"PAYLOAD_TOO_LARGE"');
  });

  it('renders a local configuration that nginx -t accepts', async () => {
    const check = await checkGatewayConfig({
      port: 0,
      upstreams: { authz: ['127.0.0.1:3001', '127.0.0.1:3011'], costasset: ['127.0.0.1:3002'] },
      admission: { maxInFlight: 32, maxHeavyInFlight: 4 },
      runDir: runDir('check'),
    });
    expect(check.output).toContain('test is successful');
    expect(check.ok).toBe(true);
    expect(readFileSync(check.configFile, 'utf8')).toContain(join(REPO_ROOT, 'deploy', 'gateway', 'routes.conf'));
  });

  it("accepts docker-compose's configuration, which includes the same routing table", async () => {
    // /etc/nginx of the nginx image, with the container names pointed at loopback (no Docker DNS here)
    const prefix = mkdtempSync(join(tmpdir(), 'compose-gateway-'));
    mkdirSync(join(prefix, 'conf.d'));
    mkdirSync(join(prefix, 'deploy'));
    symlinkSync(join(REPO_ROOT, 'deploy', 'gateway'), join(prefix, 'deploy', 'gateway'));
    symlinkSync(join(REPO_ROOT, 'docs'), join(prefix, 'docs'));
    const composeConf = readFileSync(join(REPO_ROOT, 'deploy', 'gateway', 'nginx.conf'), 'utf8');
    expect(composeConf).toContain('include deploy/gateway/routes.conf;');
    // and without `resolve` (re-resolving the scaled containers' names), which Debian's nginx predates (1.27.3)
    expect(composeConf).toMatch(/server authz:3001 resolve;/);
    // each container's bounds are those the services' containers run with, split as the local gateway splits them
    const composed = readFileSync(join(REPO_ROOT, 'docker-compose.yml'), 'utf8');
    const composedEnv = Object.fromEntries(
      ['HTTP_MAX_IN_FLIGHT', 'HTTP_MAX_HEAVY_IN_FLIGHT'].flatMap((name) => {
        const value = new RegExp(`${name}:\\s*"?(\\d+)`).exec(composed)?.[1];
        return value ? [[name, value]] : [];
      }),
    );
    const bounds = upstreamBounds(admissionBoundsOf(composedEnv));
    for (const [upstream, service] of [
      ['authz', 'authz:3001'],
      ['costasset', 'costasset:3002'],
      ['costasset_heavy', 'costasset:3002'],
    ] as const)
      expect(composeConf).toMatch(
        new RegExp(
          `upstream ${upstream} \\{\\n  zone ${upstream} 64k;\\n  server ${service} resolve max_conns=${bounds[upstream]} max_fails=0;`,
        ),
      );
    for (const [upstream, service] of [
      ['authz_always', 'authz:3001'],
      ['costasset_always', 'costasset:3002'],
    ] as const)
      expect(composeConf).toContain(`upstream ${upstream} {\n  zone ${upstream} 64k;\n  server ${service} resolve;\n`);
    const local = composeConf
      .replace(/server (authz|costasset):(\d+) resolve/g, 'server 127.0.0.1:$2')
      .replace('/var/log/nginx/access.log', join(prefix, 'access.log'));
    writeFileSync(join(prefix, 'conf.d', 'default.conf'), local);
    writeFileSync(join(prefix, 'nginx.conf'), `pid ${join(prefix, 'nginx.pid')};\nevents {}\nhttp {\n  include conf.d/*.conf;\n}\n`);
    const result = await runCommand(requireProgram('nginx'), [
      '-t',
      '-p',
      `${prefix}/`,
      '-c',
      join(prefix, 'nginx.conf'),
      '-e',
      join(prefix, 'error.log'),
    ]);
    expect(result.output).toContain('test is successful');
    const compose = readFileSync(join(REPO_ROOT, 'docker-compose.yml'), 'utf8');
    expect(compose).toContain('./deploy/gateway:/etc/nginx/deploy/gateway:ro');
    expect(compose).toContain('./docs:/etc/nginx/docs:ro');
  });
});
