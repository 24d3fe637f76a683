import request from 'supertest';
import { verifySignature } from '../../apps/costasset/src/notifications/channels/signature';
import { Notifier } from '../../apps/costasset/src/notifications/notifier';
import { teamMembers } from '../support/members';
import { mailOf, startReceiver } from '../support/notifications';
import { eventually, Platform, startPlatform } from '../support/platform';
import { expectProblem } from '../support/problems';

const CHANNELS = '/api/costasset/v1/notificationChannels';
const SUBSCRIPTIONS = '/api/costasset/v1/notificationSubscriptions';

describe('costasset notification channels, subscriptions and deliveries', () => {
  let platform: Platform;
  let admin: string;
  let bob: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const api = () => request(platform.costasset.url);
  /** Every response body of the test, to show that no secret ever comes back. */
  const bodies: string[] = [];
  const call = async (method: 'get' | 'post' | 'patch' | 'delete', path: string, body?: object, token = admin) => {
    const response = await api()[method](path).set('corelite-token', token).send(body);
    bodies.push(response.text);
    return response;
  };
  const deliveriesOf = async (channelId: string) => (await call('get', `${CHANNELS}/${channelId}/deliveries`)).body.items;
  const settled = async (channelId: string, deliveryId: string, status: string, timeoutMs = 15_000) => {
    let found: Record<string, unknown> = {};
    await eventually(async () => {
      found = (await deliveriesOf(channelId)).find((d: { id: string }) => d.id === deliveryId);
      expect(found?.status).toBe(status);
    }, timeoutMs);
    return found;
  };
  const GIVEN_SECRET = 'given-secret-0123456789-abcdefghijkl';

  beforeAll(async () => {
    receiver = await startReceiver();
    platform = await startPlatform({ BOOTSTRAP_TENANTS: 'default,other' });
    admin = await platform.token({ sub: 'admin' });
    ({ bob } = await teamMembers(platform, { code: 'READERS' }, ['bob']));
  });
  afterAll(async () => {
    await platform.close();
    await new Promise((resolve) => receiver.server.close(resolve));
  });

  it('sends a test email over SMTP with an HTML and a plain-text part', async () => {
    const created = await call('post', CHANNELS, {
      name: 'FinOps mail',
      type: 'email',
      recipients: ['finops@example.com', 'cfo@example.com'],
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'FinOps mail',
      type: 'email',
      recipients: ['finops@example.com', 'cfo@example.com'],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const test = await call('post', `${CHANNELS}/${created.body.id}/test`);
    expect(test.status).toBe(202);
    expect(test.body).toMatchObject({ channelId: created.body.id, status: 'queued', attempts: 0, topic: 'test' });
    const delivery = await settled(created.body.id, test.body.id, 'sent');
    expect(delivery).toMatchObject({ attempts: 1, sentAt: expect.any(String), idempotencyKey: expect.stringMatching(/^test:/) });

    const mail = await mailOf(test.body.id);
    expect(mail.subject).toBe('corelite test notification: FinOps mail');
    expect((mail.to as { value: { address: string }[] }).value.map((entry) => entry.address)).toEqual([
      'finops@example.com',
      'cfo@example.com',
    ]);
    expect(mail.text).toContain('If you can read it, the channel works.');
    expect(mail.html).toContain('<h2>corelite test notification: FinOps mail</h2>');
    expect(mail.html).toContain('<th align="left" style="padding:4px 12px 4px 0">Channel</th>');
  });

  it('refuses invalid channels: bad addresses, too many, fields of the other type, unknown fields', async () => {
    expectProblem(await call('post', CHANNELS, { name: 'x', type: 'email', recipients: ['not-an-address'] }), 400, 'VALIDATION_FAILED');
    expectProblem(await call('post', CHANNELS, { name: 'x', type: 'email', recipients: [] }), 400, 'VALIDATION_FAILED');
    const many = Array.from({ length: 51 }, (_, index) => `u${index}@example.com`);
    expectProblem(await call('post', CHANNELS, { name: 'x', type: 'email', recipients: many }), 400, 'VALIDATION_FAILED');
    expectProblem(
      await call('post', CHANNELS, { name: 'x', type: 'email', recipients: ['a@example.com'], url: 'https://example.com' }),
      400,
      'VALIDATION_FAILED',
    );
    expectProblem(await call('post', CHANNELS, { name: 'x', type: 'webhook' }), 400, 'VALIDATION_FAILED');
    expectProblem(await call('post', CHANNELS, { name: 'x', type: 'webhook', url: 'ftp://example.com/' }), 400, 'VALIDATION_FAILED');
    expectProblem(
      await call('post', CHANNELS, { name: 'x', type: 'webhook', url: `${receiver.url}/a`, colour: 'red' }),
      400,
      'VALIDATION_FAILED',
    );
  });

  it('signs JSON webhooks; a generated secret is shown once, in the create answer', async () => {
    const created = await call('post', CHANNELS, { name: 'JSON hook', type: 'webhook', url: `${receiver.url}/json?token=abc` });
    expect(created.status).toBe(201);
    const secret = created.body.signingSecret as string;
    expect(secret).toMatch(/^whsec_/);
    expect(created.body).toMatchObject({ type: 'webhook', format: 'json', urlOrigin: receiver.url, secretSet: true });
    const read = await call('get', `${CHANNELS}/${created.body.id}`);
    expect(read.body).toEqual({ ...created.body, signingSecret: undefined });
    expect(JSON.stringify(read.body)).not.toContain(secret);
    expect(JSON.stringify(read.body)).not.toContain('token=abc');

    const test = await call('post', `${CHANNELS}/${created.body.id}/test`);
    await settled(created.body.id, test.body.id, 'sent');
    const got = receiver.received.find((entry) => entry.headers['corelite-delivery'] === test.body.id);
    expect(got?.path).toBe('/json?token=abc');
    const now = Math.floor(Date.now() / 1000);
    expect(verifySignature(secret, got!.body, got!.headers['corelite-signature'] as string, now)).toBe(true);
    expect(verifySignature('another-secret-of-enough-length', got!.body, got!.headers['corelite-signature'] as string, now)).toBe(false);
    const body = JSON.parse(got!.body);
    expect(body).toEqual({
      id: test.body.id,
      topic: { kind: 'test' },
      title: 'corelite test notification: JSON hook',
      summary: expect.any(String),
      facts: [
        { label: 'Channel', value: 'JSON hook' },
        { label: 'Type', value: 'webhook (json)' },
      ],
      link: expect.stringMatching(/^http/),
      data: { channelId: created.body.id, test: true },
      sentAt: expect.any(String),
    });
    // a new secret of the admin's choice: never answered
    const changed = await call('patch', `${CHANNELS}/${created.body.id}`, { secret: GIVEN_SECRET });
    expect(changed.status).toBe(200);
    expect(changed.body.signingSecret).toBeUndefined();
  });

  it('sends Slack and Teams formats, signed too', async () => {
    const slack = await call('post', CHANNELS, {
      name: 'Slack',
      type: 'webhook',
      url: `${receiver.url}/slack`,
      format: 'slack',
      secret: GIVEN_SECRET,
    });
    const teams = await call('post', CHANNELS, {
      name: 'Teams',
      type: 'webhook',
      url: `${receiver.url}/teams`,
      format: 'teams',
      secret: GIVEN_SECRET,
    });
    expect(slack.body.signingSecret).toBeUndefined();
    for (const channel of [slack, teams]) {
      const test = await call('post', `${CHANNELS}/${channel.body.id}/test`);
      await settled(channel.body.id, test.body.id, 'sent');
    }
    const slackBody = receiver.received.find((entry) => entry.path === '/slack')!;
    expect(
      verifySignature(GIVEN_SECRET, slackBody.body, slackBody.headers['corelite-signature'] as string, Math.floor(Date.now() / 1000)),
    ).toBe(true);
    expect(JSON.parse(slackBody.body)).toMatchObject({ text: 'corelite test notification: Slack', blocks: expect.any(Array) });
    const teamsBody = JSON.parse(receiver.received.find((entry) => entry.path === '/teams')!.body);
    expect(teamsBody).toMatchObject({ type: 'message', attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive' }] });
    expect(teamsBody.attachments[0].content.body[0].text).toBe('corelite test notification: Teams');
  });

  it('retries a failing receiver with backoff: the third attempt is sent', async () => {
    const channel = await call('post', CHANNELS, { name: 'Flaky', type: 'webhook', url: `${receiver.url}/fail-twice/1` });
    const test = await call('post', `${CHANNELS}/${channel.body.id}/test`);
    const delivery = await settled(channel.body.id, test.body.id, 'sent');
    expect(delivery.attempts).toBe(3);
    expect(delivery.lastError).toBeUndefined();
    const times = receiver.received.filter((entry) => entry.path === '/fail-twice/1').map((entry) => entry.headers['corelite-delivery']);
    expect(times).toEqual([test.body.id, test.body.id, test.body.id]);
  });

  it('dead-letters a delivery whose receiver never answers, with the last error; fails a 410 at once', async () => {
    const dead = await call('post', CHANNELS, { name: 'Unreachable', type: 'webhook', url: 'http://127.0.0.1:1/hook' });
    const test = await call('post', `${CHANNELS}/${dead.body.id}/test`);
    const delivery = await settled(dead.body.id, test.body.id, 'dead_lettered');
    expect(delivery).toMatchObject({
      attempts: 3,
      lastError: expect.stringContaining('the connection was refused'),
      failedAt: expect.any(String),
    });

    const gone = await call('post', CHANNELS, { name: 'Gone', type: 'webhook', url: `${receiver.url}/gone` });
    const goneTest = await call('post', `${CHANNELS}/${gone.body.id}/test`);
    expect(await settled(gone.body.id, goneTest.body.id, 'failed')).toMatchObject({
      attempts: 1,
      lastError: expect.stringContaining('410'),
    });
  });

  it('subscriptions route notify() to their channels, once per idempotency key', async () => {
    const hook = await call('post', CHANNELS, { name: 'Budget hook', type: 'webhook', url: `${receiver.url}/budget` });
    const all = await call('post', SUBSCRIPTIONS, { name: 'All budgets', channelIds: [hook.body.id], topic: 'budget' });
    expect(all.status).toBe(201);
    expect(all.body).toMatchObject({ channelIds: [hook.body.id], topic: 'budget', budgetId: null });
    const one = await call('post', SUBSCRIPTIONS, { name: 'One budget', channelIds: [hook.body.id], topic: 'budget', budgetId: 'b1' });
    expectProblem(
      await call('post', SUBSCRIPTIONS, { name: 'x', channelIds: ['5f0000000000000000000000'], topic: 'anomalies' }),
      400,
      'NOTIFICATION_CHANNEL_UNKNOWN',
    );
    expectProblem(
      await call('post', SUBSCRIPTIONS, { name: 'x', channelIds: [hook.body.id], topic: 'anomalies', budgetId: 'b1' }),
      400,
      'VALIDATION_FAILED',
    );

    const notifier = platform.costasset.app.get(Notifier, { strict: false });
    const message = {
      title: 'Budget b1 at 80%',
      summary: 'Spent 800 of 1000.',
      facts: [{ label: 'Actual', value: '800' }],
      data: { budgetId: 'b1' },
    };
    expect(await notifier.notify('default', { kind: 'budget', budgetId: 'b1' }, message, 'budget:b1:2026-01:actual:80')).toBe(1);
    expect(await notifier.notify('default', { kind: 'budget', budgetId: 'b1' }, message, 'budget:b1:2026-01:actual:80')).toBe(0);
    expect(await notifier.notify('default', { kind: 'anomalies' }, message, 'anomaly:1')).toBe(0);
    expect(await notifier.notify('other', { kind: 'budget', budgetId: 'b1' }, message, 'budget:b1:2026-01:actual:80')).toBe(0);
    const log = await deliveriesOf(hook.body.id);
    expect(log).toHaveLength(1);
    await settled(hook.body.id, log[0].id, 'sent');
    expect(log[0]).toMatchObject({ topic: 'budget', budgetId: 'b1', idempotencyKey: 'budget:b1:2026-01:actual:80' });

    const listed = await call('get', `${SUBSCRIPTIONS}?limit=1`);
    expect(listed.body.items).toHaveLength(1);
    expect(listed.body.nextCursor).toEqual(expect.any(String));
    const patched = await call('patch', `${SUBSCRIPTIONS}/${one.body.id}`, { budgetId: null, name: 'Every budget' });
    expect(patched.body).toMatchObject({ name: 'Every budget', budgetId: null });

    // deleting the channel takes it out of every subscription
    expect((await call('delete', `${CHANNELS}/${hook.body.id}`)).status).toBe(204);
    expect((await call('get', `${SUBSCRIPTIONS}/${all.body.id}`)).body.channelIds).toEqual([]);
    expectProblem(await call('get', `${CHANNELS}/${hook.body.id}`), 404, 'NOTIFICATION_CHANNEL_NOT_FOUND');
    expect((await call('delete', `${SUBSCRIPTIONS}/${one.body.id}`)).status).toBe(204);
    expectProblem(await call('get', `${SUBSCRIPTIONS}/${one.body.id}`), 404, 'NOTIFICATION_SUBSCRIPTION_NOT_FOUND');
  });

  it('lists channels in pages; only System Admins reach any of it; another tenant sees nothing', async () => {
    const page = await call('get', `${CHANNELS}?limit=2`);
    expect(page.body.items).toHaveLength(2);
    const next = await call('get', `${CHANNELS}?limit=100&cursor=${page.body.nextCursor}`);
    expect(next.body.items.length).toBeGreaterThan(0);
    const id = page.body.items[0].id;
    for (const [method, path] of [
      ['get', CHANNELS],
      ['post', CHANNELS],
      ['get', `${CHANNELS}/${id}`],
      ['patch', `${CHANNELS}/${id}`],
      ['delete', `${CHANNELS}/${id}`],
      ['post', `${CHANNELS}/${id}/test`],
      ['get', `${CHANNELS}/${id}/deliveries`],
      ['get', SUBSCRIPTIONS],
      ['post', SUBSCRIPTIONS],
    ] as const) {
      expectProblem(await call(method, path, {}, bob), 403, 'SYSTEM_ADMIN_REQUIRED');
    }
    const otherAdmin = await platform.token({ sub: 'admin', tid: 'other' });
    expect((await call('get', CHANNELS, undefined, otherAdmin)).body.items).toEqual([]);
    expectProblem(await call('get', `${CHANNELS}/${id}`, undefined, otherAdmin), 404, 'NOTIFICATION_CHANNEL_NOT_FOUND');
  });

  it('never answered a webhook secret or URL path after the create answer', () => {
    const after = bodies.filter((text) => !text.includes('"signingSecret"'));
    for (const text of after) {
      expect(text).not.toContain(GIVEN_SECRET);
      expect(text).not.toContain('whsec_');
      expect(text).not.toContain('token=abc');
      expect(text).not.toContain('sealed');
    }
  });
});
