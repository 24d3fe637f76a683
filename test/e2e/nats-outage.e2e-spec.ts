import request from 'supertest';
import { expectProblem } from '../support/problems';
import { startComponent, stopComponent } from '../../tools/stack';
import { eventually, Platform, startPlatform } from '../support/platform';

const profile = process.env.STACK_PROFILE ?? 'test';
const quiet = { profile, log: () => undefined };

describe('a NATS outage', () => {
  let platform: Platform;

  beforeAll(async () => {
    platform = await startPlatform();
  });
  afterAll(async () => {
    await startComponent('nats', quiet);
    await platform.close();
  });

  it('makes readiness 503 naming NATS, answers 503 where NATS is needed, and heals without a restart', async () => {
    await request(platform.costasset.directUrl).get('/health/ready').expect(200);
    await stopComponent('nats', quiet);
    try {
      for (const url of [platform.authz.directUrl, platform.costasset.directUrl]) {
        await eventually(async () => {
          const res = await request(url).get('/health/ready');
          expect(res.status).toBe(503);
          expect(res.headers['content-type']).toMatch(/problem\+json/);
          expect(res.body).toMatchObject({ code: 'NOT_READY', checks: { nats: 'down', mongodb: 'up' } });
          expect(res.body.detail).toContain('nats');
        });
      }
      const stranger = await platform.token({ sub: 'someone-new' });
      const res = await request(platform.costasset.url).get('/api/costasset/extensions/test').set('corelite-token', stranger);
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('DEPENDENCY_UNAVAILABLE');
    } finally {
      await startComponent('nats', quiet);
    }
    for (const url of [platform.authz.directUrl, platform.costasset.directUrl]) {
      await eventually(async () => {
        await request(url).get('/health/ready').expect(200);
      }, 20_000);
    }
    // answered again: authz resolved the principal over NATS (a user in no team, refused by the route's rule)
    const stranger = await platform.token({ sub: 'someone-new' });
    await eventually(async () => {
      expectProblem(
        await request(platform.costasset.url).get('/api/costasset/extensions/test').set('corelite-token', stranger),
        403,
        'TEAM_REQUIRED',
      );
    });
  });
});
