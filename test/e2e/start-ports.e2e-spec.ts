import { ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import request from 'supertest';
import { loadSigningKey, TokenIssuer } from '@lib/auth';
import { REPO_ROOT } from '../../tools/stack/settings';
import { RunningGateway, startGateway } from '../../tools/stack/gateway';
import { startPlan } from '../../tools/start/plan';
import { eventually, setNotablescan } from '../support/platform';
import { freePorts } from '../support/service-process';

/**
 * What `npm start` does with AUTHZ_PORT, COSTASSET_PORT and GATEWAY_PORT set to other values
 * (tools/start.ts, without the build): both services run as real processes from the plan's
 * environment, behind a gateway built from the plan's upstreams. A token is accepted by both
 * through the gateway, which only works if costasset found authz's keys on the new port.
 */
describe('npm start: port overrides reach everything that depends on them', () => {
  const children: ChildProcess[] = [];
  let gateway: RunningGateway | undefined;

  afterAll(async () => {
    for (const child of children) child.kill('SIGTERM');
    await gateway?.stop();
  });

  it('accepts tokens in both services through the gateway with non-default ports', async () => {
    const [authzPort, costassetPort, gatewayPort] = await freePorts(3);
    const id = randomUUID().slice(0, 8);
    const { AUTHZ_JWKS_URL: _ignored, ...inherited } = process.env;
    const database = new URL(process.env.MONGODB_URI ?? 'mongodb://127.0.0.1:37017/corelite');
    database.pathname = `/e2e_ports_${id}`;
    await setNotablescan(database.toString(), false);
    const plan = startPlan(
      {
        ...inherited,
        MONGODB_URI: database.toString(),
        NATS_NAMESPACE: `e2e_ports_${id}`,
        AUTHZ_PORT: String(authzPort),
        COSTASSET_PORT: String(costassetPort),
        GATEWAY_PORT: String(gatewayPort),
        LOG_LEVEL: 'silent',
      },
      [],
    );
    expect(plan.serviceEnv).not.toHaveProperty('AUTHZ_JWKS_URL');
    expect(plan.upstreams).toEqual({ authz: [`127.0.0.1:${authzPort}`], costasset: [`127.0.0.1:${costassetPort}`] });

    for (const service of ['authz', 'costasset']) {
      const main = join(REPO_ROOT, 'apps', service, 'src', 'main.ts');
      children.push(
        spawn(process.execPath, ['-r', join(REPO_ROOT, 'test/support/swc-register.js'), main], {
          cwd: REPO_ROOT,
          env: plan.serviceEnv,
          stdio: 'ignore',
        }),
      );
    }
    gateway = await startGateway({
      port: plan.ports.gateway,
      upstreams: plan.upstreams,
      admission: plan.admission,
      runDir: join(REPO_ROOT, '.stack', 'test', 'gateways', `ports-${id}`),
    });
    expect(gateway.url).toBe(plan.gatewayUrl);
    await eventually(
      async () => {
        await request(gateway!.url).get('/health/authz/ready').expect(200);
        await request(gateway!.url).get('/health/costasset/ready').expect(200);
      },
      90_000,
      500,
    );

    const key = await loadSigningKey({ devKeysDir: plan.serviceEnv.DEV_KEYS_DIR ?? '.dev-keys', allowDevKey: true });
    const token = (
      await new TokenIssuer(key, 'corelite-authz').issueAccess(
        { sub: 'admin', tid: 'default', idp: 'idp-default', groups: [], authType: 'internal' },
        600,
      )
    ).token;
    const me = await request(gateway.url).get('/core/authorization/v1/me').set('corelite-token', token).expect(200);
    expect(me.body).toMatchObject({ user_id: 'admin', is_system_admin: true });
    const check = await request(gateway.url).get('/api/costasset/extensions/test').set('corelite-token', token).expect(200);
    expect(check.body).toEqual({ profileId: 'admin', tenantId: 'default' });
  }, 120_000);
});
