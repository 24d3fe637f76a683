import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderGatewayConfig, ROUTES_FILE, tempPathModulesOf } from '../gateway/gateway-config';
import { REPO_ROOT } from '../settings';

describe('gateway configuration', () => {
  const input = {
    host: '127.0.0.1',
    port: 8080,
    upstreams: { authz: ['127.0.0.1:3001', '127.0.0.1:3011'], costasset: ['127.0.0.1:3002'] },
    admission: { maxInFlight: 32, maxHeavyInFlight: 4 },
    repoRoot: '/repo',
    runDir: '/repo/.stack/dev/gateway',
    errorLog: '/repo/.stack/dev/logs/gateway-error.log',
    tempPathModules: tempPathModulesOf('configure arguments: --without-http_uwsgi_module'),
  };

  it('lists every server of a service in its upstreams, and includes the shared routing table', () => {
    const config = renderGatewayConfig(input);
    expect(config).toContain(
      '  upstream authz_always {\n    server 127.0.0.1:3001;\n    server ' +
        '127.0.0.1:3011;\n    keepalive 256;\n    keepalive_timeout 4s;\n  }',
    );
    expect(config).toContain('  upstream costasset_always {\n    server 127.0.0.1:3002;\n');
    expect(config).toContain('    listen 127.0.0.1:8080;');
    expect(config).toContain('    include "/repo/deploy/gateway/routes.conf";');
    expect(config).toContain('    set $object_store_origin "";\n');
  });

  it("gives the console a Content-Security-Policy that connects to its own origin and the object store's only", () => {
    const routes = readFileSync(join(REPO_ROOT, ROUTES_FILE), 'utf8');
    const policies = routes.split('\n').filter((line) => line.includes('add_header Content-Security-Policy'));
    expect(policies).toHaveLength(1);
    expect(policies[0]).toContain("connect-src 'self' $object_store_origin;");
    expect(policies[0]).not.toMatch(/\bhttps?:[ ;]/);
    expect(readFileSync(join(REPO_ROOT, 'deploy', 'gateway', 'nginx.conf'), 'utf8')).toContain('set $object_store_origin "";');
  });

  it("names the object store's origin, and only its origin, for the console's uploads", () => {
    expect(renderGatewayConfig({ ...input, objectStoreUrl: 'http://127.0.0.1:4569/corelite?x=1' })).toContain(
      '    set $object_store_origin "http://127.0.0.1:4569";\n',
    );
  });

  it(
    'passes each server at most the requests it admits: authz its ' +
      "bound, costasset's heavy routes theirs and its other routes the rest",
    () => {
      const config = renderGatewayConfig({
        ...input,
        upstreams: { ...input.upstreams, costasset: ['127.0.0.1:3002', '127.0.0.1:3012'] },
        admission: { maxInFlight: 6, maxHeavyInFlight: 2 },
      });
      expect(config).toContain(
        '  upstream authz {\n    server 127.0.0.1:3001 max_conns=6 max_fails=0;\n ' +
          '   server 127.0.0.1:3011 max_conns=6 max_fails=0;\n    keepalive 256;',
      );
      expect(config).toContain(
        '  upstream costasset_heavy {\n    server 127.0.0.1:3002 max_conns=2 max_fails=0;\n ' +
          '   server 127.0.0.1:3012 max_conns=2 max_fails=0;\n    keepalive 256;',
      );
      expect(config).toContain(
        '  upstream costasset {\n    server 127.0.0.1:3002 max_conns=4 max_fails=0;\n    server 127.0.0.1:3012 max_conns=4 max_fails=0;\n',
      );
      // heavy routes may take every slot: the other routes keep one
      expect(renderGatewayConfig({ ...input, admission: { maxInFlight: 3, maxHeavyInFlight: 3 } })).toContain(
        'server 127.0.0.1:3002 max_conns=1 max_fails=0;',
      );
      expect(() => renderGatewayConfig({ ...input, admission: { maxInFlight: 4, maxHeavyInFlight: 0 } })).toThrow(
        /maxHeavyInFlight must be a positive integer/,
      );
      expect(() => renderGatewayConfig({ ...input, admission: { maxInFlight: 2, maxHeavyInFlight: 3 } })).toThrow(/heavy bound/);
    },
  );

  it('keeps everything nginx writes inside the run folder, and runs in the foreground', () => {
    const config = renderGatewayConfig(input);
    expect(config).toContain('daemon off;');
    expect(config).toContain('pid "/repo/.stack/dev/gateway/nginx.pid";');
    for (const directive of ['client_body_temp_path', 'proxy_temp_path', 'fastcgi_temp_path', 'scgi_temp_path'])
      expect(config).toContain(`${directive} "/repo/.stack/dev/gateway/`);
    expect(config).not.toContain('uwsgi_temp_path'); // not compiled in: the directive would be unknown
    expect(config).toContain('access_log off;');
    expect(renderGatewayConfig({ ...input, accessLog: '/logs/access.log' })).toContain(
      'access_log "/logs/access.log" corelite_trace buffer=64k flush=1s;',
    );
  });

  it('refuses a service without servers and writes IPv6 listen addresses in brackets', () => {
    expect(() => renderGatewayConfig({ ...input, upstreams: { authz: [], costasset: ['x:1'] } })).toThrow(/at least one authz server/);
    expect(renderGatewayConfig({ ...input, host: '::1' })).toContain('listen [::1]:8080;');
  });
});
