import { loadEnvironment } from '@lib/config';
import { CostassetEnvironment } from '../../apps/costasset/src/costasset.environment';
import { AuthzEnvironment } from '../../apps/authz/src/authz.environment';
import { banner } from './banner';
import { startPlan } from './plan';
import { formatForTerminal, showsInTerminal } from './service-logs';

describe('npm start: the plan', () => {
  it('uses 3001, 3002 and 8080 on 127.0.0.1 by default', () => {
    const plan = startPlan({}, []);
    expect(plan).toMatchObject({
      host: '127.0.0.1',
      ports: { authz: 3001, costasset: 3002, gateway: 8080 },
      gatewayUrl: 'http://127.0.0.1:8080',
      verbose: false,
    });
    expect(plan.upstreams).toEqual({ authz: ['127.0.0.1:3001'], costasset: ['127.0.0.1:3002'] });
  });

  it('carries AUTHZ_PORT, COSTASSET_PORT and GATEWAY_PORT to the services, the JWKS URL, the upstreams and the banner', () => {
    const plan = startPlan({ AUTHZ_PORT: '5101', COSTASSET_PORT: '5102', GATEWAY_PORT: '5180' }, []);
    expect(plan.upstreams).toEqual({ authz: ['127.0.0.1:5101'], costasset: ['127.0.0.1:5102'] });
    expect(loadEnvironment(AuthzEnvironment, plan.serviceEnv).AUTHZ_PORT).toBe(5101);
    const costasset = loadEnvironment(CostassetEnvironment, plan.serviceEnv);
    expect(costasset.COSTASSET_PORT).toBe(5102);
    expect(costasset.jwksUrl).toBe('http://127.0.0.1:5101/core/authorization/v1/.well-known/jwks.json');
    expect(costasset.consoleUrl).toBe('http://127.0.0.1:5180');
    expect(banner(plan, [], '/repo')).toContain('corelite is running at http://127.0.0.1:5180');
  });

  it('binds HOST, and reaches a service bound to every interface on loopback', () => {
    expect(startPlan({ HOST: '0.0.0.0' }, [])).toMatchObject({
      host: '0.0.0.0',
      gatewayUrl: 'http://127.0.0.1:8080',
      serviceEnv: { HOST: '0.0.0.0' },
    });
    expect(startPlan({ HOST: '10.1.2.3' }, []).upstreams.authz).toEqual(['10.1.2.3:3001']);
  });

  it("gives the gateway the services' bounds of work in flight", () => {
    expect(startPlan({}, []).admission).toEqual({ maxInFlight: 32, maxHeavyInFlight: 4 });
    const plan = startPlan({ HTTP_MAX_HEAVY_IN_FLIGHT: '2' }, []);
    expect(plan.admission.maxHeavyInFlight).toBe(loadEnvironment(CostassetEnvironment, plan.serviceEnv).HTTP_MAX_HEAVY_IN_FLIGHT);
    expect(plan.admission.maxHeavyInFlight).toBe(2);
  });

  it('--traces points both services at the local OTLP receiver (TRACES_PORT, 4318 by default); without it, no endpoint', () => {
    expect(startPlan({}, []).serviceEnv.OTEL_EXPORTER_OTLP_ENDPOINT).toBeUndefined();
    expect(startPlan({}, []).traces).toBeUndefined();
    const plan = startPlan({}, ['--traces']);
    expect(plan.traces).toEqual({ port: 4318, url: 'http://127.0.0.1:4318' });
    expect(plan.serviceEnv.OTEL_EXPORTER_OTLP_ENDPOINT).toBe('http://127.0.0.1:4318');
    expect(startPlan({ TRACES_PORT: '5318' }, ['--traces']).serviceEnv.OTEL_EXPORTER_OTLP_ENDPOINT).toBe('http://127.0.0.1:5318');
    expect(() => startPlan({ TRACES_PORT: 'x' }, ['--traces'])).toThrow(/TRACES_PORT/);
    expect(banner(plan, [], '/repo', undefined, undefined, '/repo/.stack/dev/traces.jsonl')).toContain('.stack/dev/traces.jsonl');
  });

  it('keeps an explicit AUTHZ_JWKS_URL', () => {
    const plan = startPlan({ AUTHZ_PORT: '5101', AUTHZ_JWKS_URL: 'https://keys.example/jwks.json' }, []);
    expect(loadEnvironment(CostassetEnvironment, plan.serviceEnv).jwksUrl).toBe('https://keys.example/jwks.json');
  });

  it('refuses a bad port, two services on one port and unknown arguments', () => {
    expect(() => startPlan({ GATEWAY_PORT: 'eighty' }, [])).toThrow("GATEWAY_PORT='eighty' is not a port number");
    expect(() => startPlan({ GATEWAY_PORT: '3001' }, [])).toThrow(/same port/);
    expect(() => startPlan({}, ['--fast'])).toThrow(/unknown argument --fast/);
  });

  it('shows the full logs with --verbose or an explicit LOG_LEVEL', () => {
    expect(startPlan({}, ['--verbose']).verbose).toBe(true);
    expect(startPlan({ LOG_LEVEL: 'debug' }, []).verbose).toBe(true);
  });
});

describe('npm start: the quiet terminal', () => {
  const line = (fields: object) => JSON.stringify({ time: 1, pid: 2, hostname: 'h', service: 'costasset', instance: 'h:2', ...fields });

  it('shows warnings, errors and anything that is not a log line; info only when verbose', () => {
    expect(showsInTerminal(line({ level: 30, msg: 'Mapped {/x, GET} route', context: 'RouterExplorer' }), false)).toBe(false);
    expect(showsInTerminal(line({ level: 40, msg: 'job failed' }), false)).toBe(true);
    expect(showsInTerminal(line({ level: 50, msg: 'boom' }), false)).toBe(true);
    expect(showsInTerminal('Invalid environment:', false)).toBe(true);
    expect(showsInTerminal(line({ level: 30, msg: 'request completed' }), true)).toBe(true);
  });

  it('prints one short line per entry', () => {
    expect(
      formatForTerminal('costasset', line({ level: 40, context: 'Jobs', msg: 'job failed', jobId: 'j1', attempt: 2, reason: 'bad file' })),
    ).toBe('costasset WARN  [Jobs] job failed (jobId=j1, attempt=2, reason=bad file)');
    expect(
      formatForTerminal(
        'authz',
        line({ level: 30, msg: 'request completed', req: { method: 'GET', url: '/core/x' }, res: { statusCode: 200 }, responseTime: 3 }),
      ),
    ).toBe('authz     INFO  request completed GET /core/x → 200 in 3 ms');
  });
});
