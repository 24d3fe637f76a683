import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import request from 'supertest';
import { eventually, Platform, startPlatform } from '../support/platform';
import { freePort, startStore } from '../support/store-process';

/**
 * The embedded store killed with SIGKILL while both services run: once it is back on the same
 * data directory, the services answer again with everything acknowledged before the kill,
 * without a restart of their own (the driver reconnects). Only meaningful for the in-repo store,
 * so it runs its own store process, whatever MONGODB_URI the suite uses.
 */
const PROVIDERS = '/api/costasset/v1/providers/object-storage';
const TEAMS = '/authorization/v2/teams';

describe('the embedded store killed under running services', () => {
  let dataDir: string;
  let port: number;
  let store: ChildProcess;
  let platform: Platform;
  let admin: string;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'e2e-store-kill-'));
    port = await freePort();
    store = await startStore(port, dataDir);
    platform = await startPlatform({ MONGODB_URI: `mongodb://127.0.0.1:${port}/store_kill` });
    admin = await platform.token({ sub: 'admin' });
  });

  afterAll(async () => {
    await platform?.close().catch(() => undefined);
    if (store && store.exitCode === null) {
      const exited = new Promise((resolve) => store.once('exit', resolve));
      store.kill('SIGTERM');
      await exited;
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers again after a kill -9 and a restart of the store, with every acknowledged write', async () => {
    const costasset = () => request(platform.costasset.url);
    const authz = () => request(platform.authz.url);
    await costasset().post(PROVIDERS).set('corelite-token', admin).send({ providerName: 'MinIO', providerCode: 'minio' }).expect(201);
    await authz().post(TEAMS).set('corelite-token', admin).send({ team_code: 'BEFORE-KILL', org_code: 'org-k', roles: [] }).expect(201);

    const exited = new Promise((resolve) => store.once('exit', resolve));
    store.kill('SIGKILL');
    await exited;
    // While the store is down the services fail requests instead of hanging.
    const down = await costasset().get(`${PROVIDERS}/minio`).set('corelite-token', admin);
    expect(down.status).toBeGreaterThanOrEqual(500);

    store = await startStore(port, dataDir);
    await eventually(
      async () => {
        const provider = await costasset().get(`${PROVIDERS}/minio`).set('corelite-token', admin);
        expect(provider.status).toBe(200);
        expect(provider.body).toMatchObject({ providerCode: 'minio' });
      },
      30_000,
      250,
    );
    await eventually(
      async () => {
        const team = await authz().get(`${TEAMS}/BEFORE-KILL`).set('corelite-token', admin);
        expect(team.status).toBe(200);
      },
      30_000,
      250,
    );
    // Unique indexes were rebuilt: a second provider with the same code is still refused.
    const duplicate = await costasset().post(PROVIDERS).set('corelite-token', admin).send({ providerName: 'Again', providerCode: 'minio' });
    expect(duplicate.status).toBe(409);
    await authz().post(TEAMS).set('corelite-token', admin).send({ team_code: 'AFTER-KILL', org_code: 'org-k', roles: [] }).expect(201);
  }, 120_000);
});
