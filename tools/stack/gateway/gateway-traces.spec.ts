import { renderGatewayConfig, tracesLocation } from './gateway-config';

describe("gateway: the local traces receiver's read side (npm start -- --traces)", () => {
  const input = {
    host: '0.0.0.0',
    port: 8080,
    upstreams: { authz: ['127.0.0.1:3001'], costasset: ['127.0.0.1:3002'] },
    admission: { maxInFlight: 32, maxHeavyInFlight: 4 },
    repoRoot: '/repo',
    runDir: '/repo/.stack/dev/gateway',
    errorLog: '/repo/.stack/dev/logs/gateway-error.log',
    tempPathModules: [],
  };

  it('proxies /local-traces/ to the receiver, for clients on this machine only, before the routing table', () => {
    const config = renderGatewayConfig({ ...input, tracesUpstream: '127.0.0.1:4318' });
    expect(config).toContain(
      '    location /local-traces/ {\n      allow 127.0.0.1;\n      allow ::1;\n      deny all;\n' +
        '      proxy_pass http://127.0.0.1:4318/v1/traces/;\n    }\n    include "/repo/deploy/gateway/routes.conf";',
    );
    expect(tracesLocation('[::1]:4318')).toContain('      proxy_pass http://[::1]:4318/v1/traces/;');
  });

  it('has no such location without a receiver, and refuses an upstream that is not host:port', () => {
    expect(renderGatewayConfig(input)).not.toContain('local-traces');
    expect(tracesLocation(undefined)).toEqual([]);
    expect(() => tracesLocation('127.0.0.1:4318/; }')).toThrow(/host:port/);
    expect(() => tracesLocation('http://127.0.0.1:4318')).toThrow(/host:port/);
  });
});
