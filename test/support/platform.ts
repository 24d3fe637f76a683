import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { INestApplication } from '@nestjs/common';
import { getConnectionToken } from '@nestjs/mongoose';
import { MongoClient } from 'mongodb';
import type { Connection } from 'mongoose';
import { loadSigningKey, TokenIssuer } from '@lib/auth';
import type { AdmissionBounds } from '@lib/config';
import { AdmissionControl } from '@lib/http';
import { createAuthzApp } from '../../apps/authz/src/create-authz-app';
import { createCostassetApp } from '../../apps/costasset/src/create-costasset-app';
import { REPO_ROOT } from '../../tools/stack/settings';
import { withServiceNatsUser } from '../../tools/stack';
import { RunningGateway, startGateway, sweepOrphanGateways } from '../../tools/stack/gateway';

export interface RunningApp {
  app: INestApplication;
  /** The platform's gateway: every path of the interface answers there, as for a user of `npm start`. */
  url: string;
  /** The service itself, without the gateway. */
  directUrl: string;
}

export interface Platform {
  authz: RunningApp;
  costasset: RunningApp;
  /** The gateway (nginx, the routing table of deploy/gateway/routes.conf) in front of both services. */
  gateway: { url: string };
  env: NodeJS.ProcessEnv;
  /** A signed access token, as the token command would mint it. */
  token(claims: { sub: string; tid?: string; idp?: string; groups?: string[] }, ttlSeconds?: number): Promise<string>;
  refreshToken(claims: { sub: string; tid?: string; idp?: string; groups?: string[] }): Promise<string>;
  /** Stops both services and drops the test's database, unless `keepDatabase` (restart tests). */
  close(options?: { keepDatabase?: boolean }): Promise<void>;
}

export const DEFAULT_TENANT = 'default';
export const DEFAULT_IDP = 'idp-default';

/** The stack's database URI with a database of its own, so test files never see each other's data. */
function isolatedMongoUri(uri: string, database: string): string {
  const url = new URL(uri);
  url.pathname = `/${database}`;
  return url.toString();
}

/**
 * mongod's `notablescan` server parameter, set as an operator would (so a real mongod behaves the same).
 * It is server-wide: a test that starts services as processes switches it off first, since start-up
 * runs before the indexes exist.
 */
export async function setNotablescan(uri: string, on: boolean): Promise<void> {
  const client = await MongoClient.connect(uri, { serverSelectionTimeoutMS: 5000 });
  try {
    await client.db('admin').command({ setParameter: 1, notablescan: on });
  } finally {
    await client.close();
  }
}

/**
 * Queries that need a collection scan fail the suite: once every model's indexes are built, the
 * server refuses them (mongod's `notablescan`; an empty filter stays allowed, as in mongod).
 * Start-up itself runs before the indexes exist, so scans are allowed until then.
 */
async function refuseCollectionScans(apps: INestApplication[], uri: string): Promise<void> {
  const connections = apps.map((app) => app.get<Connection>(getConnectionToken()));
  for (const connection of connections) await Promise.all(connection.modelNames().map((name) => connection.model(name).init()));
  await setNotablescan(uri, true);
}

async function listen(app: INestApplication): Promise<string> {
  await app.listen(0, '127.0.0.1');
  return (await app.getUrl()).replace('[::1]', '127.0.0.1');
}

const gatewaysDir = join(REPO_ROOT, '.stack', process.env.STACK_PROFILE || 'test', 'gateways');

/** A gateway of its own in front of the two in-process services, on a free port, with the services' bounds of work in flight. */
async function startTestGateway(id: string, authzUrl: string, costassetUrl: string, admission: AdmissionBounds): Promise<RunningGateway> {
  await sweepOrphanGateways(gatewaysDir);
  return startGateway({
    port: 0,
    upstreams: { authz: [new URL(authzUrl).host], costasset: [new URL(costassetUrl).host] },
    admission,
    runDir: join(gatewaysDir, id),
    objectStoreUrl: process.env.S3_ENDPOINT,
  });
}

/** A gateway not stopped here (a test that closes its services by hand) is stopped by the e2e project's global teardown. */
async function stopTestGateway(id: string, gateway: RunningGateway): Promise<void> {
  await gateway.stop();
  rmSync(join(gatewaysDir, id), { recursive: true, force: true });
}

/**
 * Boots both services exactly as `main.ts` does (same factories), on free loopback ports,
 * against the real stack started by `npm test`, behind a gateway of their own (nginx with the
 * routing table `npm start` and docker-compose use): `platform.authz.url` and
 * `platform.costasset.url` are the gateway's address, `directUrl` the service's own. Each call
 * gets its own database and NATS namespace; each service connects to NATS as its own user, and
 * `env` (shared, what tests start more services with) holds the stack's tools user. costasset
 * verifies tokens through the JWKS that this authz publishes.
 */
export async function startPlatform(overrides: NodeJS.ProcessEnv = {}): Promise<Platform> {
  const id = randomUUID().slice(0, 8);
  const base: NodeJS.ProcessEnv = {
    ...process.env,
    MONGODB_URI: isolatedMongoUri(process.env.MONGODB_URI ?? 'mongodb://127.0.0.1:37017/corelite', `e2e_${id}`),
    NATS_NAMESPACE: `e2e_${id}`,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    // notification deliveries: the tests' receivers listen on the loopback, and retries come quickly
    NOTIFICATIONS_ALLOW_PRIVATE_HOSTS: 'true',
    NOTIFICATIONS_RETRY_DELAY_MS: '200',
    NOTIFICATIONS_MAX_ATTEMPTS: '3',
    NOTIFICATIONS_TIMEOUT_MS: '3000',
    ...overrides,
  };
  await setNotablescan(base.MONGODB_URI as string, false);
  const { app: authzApp } = await createAuthzApp(withServiceNatsUser(base, 'authz'));
  const authzUrl = await listen(authzApp);
  const env: NodeJS.ProcessEnv = { ...base, AUTHZ_JWKS_URL: `${authzUrl}/core/authorization/v1/.well-known/jwks.json` };
  const { app: costassetApp } = await createCostassetApp(withServiceNatsUser(env, 'costasset'));
  const costassetUrl = await listen(costassetApp);
  const gateway = await startTestGateway(id, authzUrl, costassetUrl, costassetApp.get(AdmissionControl).options);
  await refuseCollectionScans([authzApp, costassetApp], base.MONGODB_URI as string);

  const key = await loadSigningKey({ devKeysDir: env.DEV_KEYS_DIR ?? '.dev-keys', allowDevKey: true, privateKeyPem: env.JWT_PRIVATE_KEY });
  const issuer = new TokenIssuer(key, env.JWT_ISSUER ?? 'corelite-authz');
  const claimsOf = (c: { sub: string; tid?: string; idp?: string; groups?: string[] }) => ({
    sub: c.sub,
    tid: c.tid ?? DEFAULT_TENANT,
    idp: c.idp ?? DEFAULT_IDP,
    groups: c.groups ?? [],
  });

  return {
    authz: { app: authzApp, url: gateway.url, directUrl: authzUrl },
    costasset: { app: costassetApp, url: gateway.url, directUrl: costassetUrl },
    gateway: { url: gateway.url },
    env,
    token: async (claims, ttlSeconds = 600) => (await issuer.issueAccess({ ...claimsOf(claims), authType: 'internal' }, ttlSeconds)).token,
    refreshToken: async (claims) => (await issuer.issueRefresh(claimsOf(claims), 600)).token,
    close: async (options = {}) => {
      if (!options.keepDatabase)
        await authzApp
          .get<Connection>(getConnectionToken())
          .dropDatabase()
          .catch(() => undefined);
      await stopTestGateway(id, gateway);
      await costassetApp.close();
      await authzApp.close();
    },
  };
}

/** Paths each service answers on its own address only: the gateway publishes neither health checks nor metrics. */
export const servedDirectly = (path: string): boolean => path.startsWith('/health/') || path === '/metrics';

/** Polls until `check` passes or the time is up (for effects that travel over NATS). */
export async function eventually(check: () => Promise<void>, timeoutMs = 10_000, intervalMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}
