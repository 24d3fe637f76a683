import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { retryDelay } from '../delivery-queue';
import { DeliveryError, isTransientSmtpCode, isTransientStatus } from './delivery-error';
import { Envelope, jsonBody, renderEmail, slackBody, teamsBody } from './render';
import { generateSigningSecret, signatureHeader, verifySignature } from './signature';
import { postWebhook } from './webhook-sender';

const envelope: Envelope = {
  id: '65f000000000000000000001',
  topic: { kind: 'budget', budgetId: 'b1' },
  message: {
    title: 'Budget <Prod> at 80%',
    summary: 'Spent 800 of 1000 & counting <script>alert(1)</script>',
    facts: [
      { label: 'Budget', value: 'Prod "main"' },
      { label: 'Actual', value: '800.00 EUR' },
    ],
    link: 'https://console.example.com/budgets/b1',
    data: { budgetId: 'b1', percent: 80 },
  },
  sentAt: new Date('2026-01-31T10:00:00Z'),
};

describe('rendering', () => {
  it('gives email an HTML part with every text escaped, and a plain-text part with the same content', () => {
    const email = renderEmail(envelope);
    expect(email.subject).toBe('Budget <Prod> at 80%');
    expect(email.html).toContain('<h2>Budget &lt;Prod&gt; at 80%</h2>');
    expect(email.html).toContain('&amp; counting &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(email.html).toContain('<td style="padding:4px 0">Prod &quot;main&quot;</td>');
    expect(email.html).toContain('<a href="https://console.example.com/budgets/b1">');
    expect(email.html).not.toContain('<script>');
    expect(email.text).toContain('Spent 800 of 1000 & counting <script>alert(1)</script>');
    expect(email.text).toMatch(/Budget: +Prod "main"/);
    expect(email.text).toContain('Open: https://console.example.com/budgets/b1');
  });

  it('never renders a link that is not http(s)', () => {
    const email = renderEmail({ ...envelope, message: { ...envelope.message, link: 'javascript:alert(1)' } });
    expect(email.html).not.toContain('javascript:');
    expect(jsonBody({ ...envelope, message: { ...envelope.message, link: 'javascript:alert(1)' } }).link).toBeNull();
  });

  it('gives the JSON format id, topic, title, summary, facts, link, data and sentAt', () => {
    expect(jsonBody(envelope)).toEqual({
      id: envelope.id,
      topic: { kind: 'budget', budgetId: 'b1' },
      title: envelope.message.title,
      summary: envelope.message.summary,
      facts: envelope.message.facts,
      link: 'https://console.example.com/budgets/b1',
      data: { budgetId: 'b1', percent: 80 },
      sentAt: '2026-01-31T10:00:00.000Z',
    });
  });

  it('gives Slack text and blocks with mrkdwn escaped', () => {
    const body = slackBody(envelope);
    expect(body.text).toBe('Budget &lt;Prod&gt; at 80%');
    expect(body.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Budget <Prod> at 80%' } });
    expect(JSON.stringify(body.blocks)).toContain('*Actual*\\n800.00 EUR');
    expect(JSON.stringify(body.blocks)).toContain('<https://console.example.com/budgets/b1|Open in corelite>');
    expect(JSON.stringify(body.blocks)).not.toContain('<script>');
  });

  it('gives Teams a message with one Adaptive Card: title, summary, facts and a link action', () => {
    const body = teamsBody(envelope);
    expect(body.type).toBe('message');
    const card = body.attachments[0];
    expect(card.contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(card.content.type).toBe('AdaptiveCard');
    expect(card.content.body[2]).toEqual({
      type: 'FactSet',
      facts: [
        { title: 'Budget', value: 'Prod "main"' },
        { title: 'Actual', value: '800.00 EUR' },
      ],
    });
    expect(card.content.actions).toEqual([
      { type: 'Action.OpenUrl', title: 'Open in corelite', url: 'https://console.example.com/budgets/b1' },
    ]);
  });
});

describe('signature', () => {
  it('signs t.rawBody with HMAC-SHA256 and verifies it, refusing another body, secret or a stale timestamp', () => {
    const secret = generateSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const header = signatureHeader(secret, '{"a":1}', 1_700_000_000);
    expect(header).toMatch(/^t=1700000000,v1=[0-9a-f]{64}$/);
    expect(verifySignature(secret, '{"a":1}', header, 1_700_000_100)).toBe(true);
    expect(verifySignature(secret, '{"a":2}', header, 1_700_000_100)).toBe(false);
    expect(verifySignature(`${secret}x`, '{"a":1}', header, 1_700_000_100)).toBe(false);
    expect(verifySignature(secret, '{"a":1}', header, 1_700_000_301)).toBe(false);
  });
});

describe('what is retried', () => {
  it('retries 5xx, 408 and 429 and SMTP 4xx; nothing else', () => {
    expect([500, 502, 503, 408, 429].every(isTransientStatus)).toBe(true);
    expect([400, 401, 403, 404, 410, 422, 301].some(isTransientStatus)).toBe(false);
    expect(isTransientSmtpCode(451)).toBe(true);
    expect(isTransientSmtpCode(550)).toBe(false);
  });

  it('waits longer before each attempt, at most the maximum, and not after the last', () => {
    const settings = { base: 10_000, max: 3_600_000, attempts: 5 };
    expect([1, 2, 3, 4, 5].map((attempt) => retryDelay(attempt, settings))).toEqual([10_000, 40_000, 160_000, 640_000, 0]);
    expect(retryDelay(4, { base: 10_000, max: 60_000, attempts: 9 })).toBe(60_000);
  });
});

describe('postWebhook', () => {
  let server: Server;
  let url: string;
  let answer: number;
  let received: { headers: Record<string, unknown>; body: string }[];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(answer, answer === 302 ? { location: 'http://127.0.0.1:1/' } : {}).end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  beforeEach(() => {
    received = [];
    answer = 204;
  });

  const post = (target = url, allowPrivateHosts = true) =>
    postWebhook(
      { url: target, secret: 'whsec_test', body: { hello: 'world' }, deliveryId: 'd1', topic: 'test' },
      { allowPrivateHosts, timeoutMs: 2000, now: () => 1_700_000_000 },
    );

  it('POSTs the JSON body signed, with the delivery id', async () => {
    await post();
    expect(received).toHaveLength(1);
    expect(received[0].body).toBe('{"hello":"world"}');
    expect(received[0].headers['corelite-delivery']).toBe('d1');
    expect(verifySignature('whsec_test', received[0].body, received[0].headers['corelite-signature'] as string, 1_700_000_000)).toBe(true);
  });

  it.each([
    [500, false],
    [429, false],
    [408, false],
    [404, true],
    [400, true],
    [302, true],
  ])('treats %i as permanent: %s', async (status, permanent) => {
    answer = status;
    const error = await post().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DeliveryError);
    expect((error as DeliveryError).permanent).toBe(permanent);
    expect((error as DeliveryError).message).not.toContain('/hook');
  });

  it('refuses a loopback address unless private hosts are allowed, by literal and by name', async () => {
    for (const target of [url, url.replace('127.0.0.1', 'localhost')]) {
      const error = (await post(target, false).catch((caught: unknown) => caught)) as DeliveryError;
      expect(error.permanent).toBe(true);
      expect(error.message).toContain('NOTIFICATION_HOST_NOT_ALLOWED');
    }
    expect(received).toHaveLength(0);
  });

  it('treats an unreachable receiver as transient', async () => {
    const error = (await post('http://127.0.0.1:1/').catch((caught: unknown) => caught)) as DeliveryError;
    expect(error.permanent).toBe(false);
  });
});
