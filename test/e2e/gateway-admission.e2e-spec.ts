import { connect, Socket } from 'node:net';
import { Reflector } from '@nestjs/core';
import request from 'supertest';
import { RouteCatalog } from '@lib/auth';
import { AdmissionControl, HEAVY_ROUTE } from '@lib/http';
import { scrape, total } from '../support/metrics';
import { eventually, Platform, startPlatform } from '../support/platform';
import { expectProblem } from '../support/problems';

const BOUND = 2;

/**
 * A heavy request that keeps its slot at the gateway and in the service: its JSON body never
 * ends, so it waits in the service's body parser until its socket is closed.
 */
function heldHeavyRequest(gatewayUrl: string): Promise<Socket> {
  const { hostname, port } = new URL(gatewayUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        'GET /api/costasset/v1/costLineItems HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{',
      );
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** A path that a route pattern matches (`:reportModelID` → `sample`). */
const samplePath = (pattern: string) => pattern.replace(/:[^/]+/g, 'sample');

/**
 * The gateway refuses costasset's heavy routes beyond HTTP_MAX_HEAVY_IN_FLIGHT per instance itself
 * (nginx `max_conns`, deploy/gateway/routes.conf), with the service's own 503 SERVER_BUSY and
 * Retry-After, before they reach the service; its heavy location is exactly the routes the
 * controllers mark `@HeavyRoute()`.
 */
describe('gateway: admission of heavy routes', () => {
  let platform: Platform;
  let admin: string;
  let admission: AdmissionControl;
  let held: Socket[] = [];

  const readiness = async () =>
    (await fetch(`${platform.costasset.directUrl}/health/ready`)).json() as Promise<{ checks: Record<string, string> }>;
  const holdEveryHeavySlot = async () => {
    held = await Promise.all(Array.from({ length: BOUND }, () => heldHeavyRequest(platform.gateway.url)));
    // the service itself counts them: every heavy slot taken
    await eventually(async () => expect((await readiness()).checks.admission).toBe('down'), 10_000, 10);
  };
  const release = async () => {
    held.forEach((socket) => socket.destroy());
    held = [];
    await eventually(async () => expect((await readiness()).checks.admission).toBe('up'), 10_000, 10);
  };
  const refusedByGateway = (res: request.Response) => res.status === 503 && res.headers['corelite-refused-by'] === 'gateway';

  beforeAll(async () => {
    platform = await startPlatform({ HTTP_MAX_HEAVY_IN_FLIGHT: String(BOUND) });
    admin = await platform.token({ sub: 'admin' });
    admission = platform.costasset.app.get(AdmissionControl);
  });
  afterEach(() => release());
  afterAll(() => platform.close());

  it(
    'refuses heavy requests beyond the bound at the gateway, which ' + 'the service never sees; /me, cheap routes and health stay served',
    async () => {
      expect(admission.options.maxHeavyInFlight).toBe(BOUND);
      await holdEveryHeavySlot();
      // the service's own refusal, for comparison (on its own address)
      const byService = await request(platform.costasset.directUrl).get('/api/costasset/v1/costs').set('corelite-token', admin);
      expectProblem(byService, 503, 'SERVER_BUSY');
      expect(byService.headers['corelite-refused-by']).toBeUndefined();

      const before = await scrape(platform.costasset.directUrl);
      const heavy = [
        '/api/costasset/v1/costLineItems?limit=100',
        '/api/costasset/v1/costLineItems/totals',
        '/api/costasset/v1/assets',
        '/api/costasset/v1/costs',
        '/api/costasset/v1/reportModels/any/execution',
        '/api/costasset/v1/dataManagement/accounts',
        '/api/costasset/v1/allocation/tagKeys',
        '/api/costasset/v1/allocation/showback?dimension=dimension:x',
      ];
      const answers = await Promise.all(
        [...heavy, ...heavy].map((path) => request(platform.gateway.url).get(path).set('corelite-token', admin)),
      );
      for (const answer of answers) {
        expectProblem(answer, 503, 'SERVER_BUSY');
        expect({ retryAfter: answer.headers['retry-after'], refusedBy: answer.headers['corelite-refused-by'] }).toEqual({
          retryAfter: '1',
          refusedBy: 'gateway',
        });
        // the service's refusal as the gateway writes it: the same problem, without the `instance` nginx cannot escape,
        // and with the request id of the one that refused (the gateway's own, as in its access log)
        const {
          instance: _instance,
          detail: _detail,
          requestId: serviceRequestId,
          ...fromService
        } = byService.body as Record<string, unknown>;
        const { detail: _gatewayDetail, requestId: gatewayRequestId, ...fromGateway } = answer.body as Record<string, unknown>;
        expect(fromGateway).toEqual(fromService);
        expect([typeof serviceRequestId, gatewayRequestId]).toEqual(['string', expect.stringMatching(/^[0-9a-f]{32}$/)]);
        expect(byService.headers['retry-after']).toBe(answer.headers['retry-after']);
      }
      await request(platform.gateway.url).get('/core/authorization/v1/me').set('corelite-token', admin).expect(200);
      await request(platform.gateway.url).get('/api/costasset/v1/currency/defaultCurrency').set('corelite-token', admin).expect(200);
      await request(platform.gateway.url).get('/health/costasset/live').expect(200);
      const after = await scrape(platform.costasset.directUrl);
      // not one of them reached the service: no refusal of its own, no request on a heavy route
      const refusals = (families: typeof after) => total(families, 'corelite_http_admission_refusals_total');
      expect(refusals(after) - refusals(before)).toBe(0);
      const heavyServed = (families: typeof after) =>
        ['/api/costasset/v1/costs', '/api/costasset/v1/assets', '/api/costasset/v1/costLineItems/totals'].reduce(
          (sum, route) => sum + total(families, 'corelite_http_request_duration_seconds', { route }),
          0,
        );
      expect(heavyServed(after) - heavyServed(before)).toBe(0);

      await release();
      await request(platform.gateway.url).get('/api/costasset/v1/costs').set('corelite-token', admin).expect(200);
    },
  );

  it("routes to the heavy location exactly costasset's @HeavyRoute() routes (GET and HEAD, any letter case after the prefix)", async () => {
    const reflector = platform.costasset.app.get(Reflector);
    const routes = platform.costasset.app.get(RouteCatalog).routes();
    const marked = routes.filter((route) => reflector.getAllAndOverride<boolean>(HEAVY_ROUTE, [route.target, route.controller]) === true);
    expect(marked.length).toBeGreaterThanOrEqual(6);
    // the service's own view of each route's sample path agrees with the marks
    for (const route of routes) {
      expect({
        route: `${route.method} ${route.path}`,
        heavy: admission.classify(route.method, samplePath(route.path)) === 'heavy',
      }).toEqual({
        route: `${route.method} ${route.path}`,
        heavy: marked.includes(route),
      });
    }
    const probes = [
      ...routes.map((route) => ({ method: route.method, path: samplePath(route.path) })),
      ...marked.flatMap((route) => {
        const path = samplePath(route.path);
        const upper = path.replace(/^(\/api\/costasset\/)(.*)$/, (_all, prefix: string, rest: string) => prefix + rest.toUpperCase());
        return [
          { method: 'HEAD', path },
          { method: 'GET', path: upper },
          { method: 'GET', path: `${path}/` },
          ...['POST', 'PUT', 'PATCH', 'DELETE'].map((method) => ({ method, path })),
        ];
      }),
    ];
    await holdEveryHeavySlot();
    const mismatches: string[] = [];
    for (const { method, path } of probes) {
      // no token: nothing a probe reaches does any work
      const res = await request(platform.gateway.url)[method.toLowerCase() as 'get'](path);
      const heavy = admission.classify(method, path) === 'heavy';
      if (refusedByGateway(res) !== heavy)
        mismatches.push(`${method} ${path}: ${heavy ? 'heavy' : 'not heavy'}, the gateway answered ${res.status} ${res.body?.code ?? ''}`);
    }
    expect(mismatches).toEqual([]);
    expect(probes.filter(({ method, path }) => admission.classify(method, path) === 'heavy').length).toBe(marked.length * 4);
  });
});
