import { connect, ErrorCode, NatsConnection, NatsError } from 'nats';
import { MessageBus, NatsConnectionProvider } from '@lib/messaging';
import { Metrics } from '@lib/metrics';
import { Platform, startPlatform } from '../support/platform';

const FORGED_REPLY = new TextEncoder().encode(
  JSON.stringify({ ok: true, data: { authType: 'internal', teams: [], roles: [], isSystemAdmin: true } }),
);

/** The first asynchronous error the server sends this connection (a permissions violation), or undefined after `ms`. */
async function nextServerError(nc: NatsConnection, ms = 2000): Promise<string | undefined> {
  const statuses = (async () => {
    for await (const status of nc.status()) if (status.type === 'error') return String(status.data);
    return undefined;
  })();
  return Promise.race([statuses, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms))]);
}

/**
 * The exploit of a bus without credentials: any process on it subscribes to
 * `authz.principal.resolve` and answers `isSystemAdmin: true`. NATS now knows each service's
 * user: only authz may answer the requests it serves.
 */
describe('NATS authorization', () => {
  let platform: Platform;
  const servers = () => (process.env.NATS_URL ?? 'nats://127.0.0.1:14222').split(',');
  const resolveSubject = () => `${platform.env.NATS_NAMESPACE}.authz.principal.resolve`;

  beforeAll(async () => {
    platform = await startPlatform();
  });
  afterAll(() => platform.close());

  it('refuses a client without credentials', async () => {
    const error = await connect({ servers: servers(), reconnect: false }).then(
      async (nc) => {
        await nc.close();
        return undefined;
      },
      (failure: NatsError) => failure,
    );
    expect(error?.code).toBe(ErrorCode.AuthorizationViolation);
  });

  it("refuses costasset's user a subscription to authz's requests (wildcards too), and a reply to anyone else's request", async () => {
    const nc = await connect({ servers: servers(), user: 'costasset', pass: process.env.NATS_COSTASSET_PASSWORD, reconnect: false });
    try {
      for (const subject of [
        resolveSubject(),
        'authz.principal.resolve',
        `${platform.env.NATS_NAMESPACE}.core.flags.set`,
        // wildcards that would overhear the requests
        `${platform.env.NATS_NAMESPACE}.authz.>`,
        '*.authz.*.*',
        '>',
      ]) {
        const refused = nextServerError(nc);
        let answered = 0;
        const sub = nc.subscribe(subject, {
          queue: 'authz',
          callback: (err, msg) => void (err ? undefined : ((answered += 1), msg.respond(FORGED_REPLY))),
        });
        expect(await refused).toMatch(ErrorCode.PermissionsViolation);
        await sub.closed.catch(() => undefined);
        expect(answered).toBe(0);
      }
      const forged = nextServerError(nc);
      nc.publish('_INBOX.forged.reply', FORGED_REPLY);
      expect(await forged).toMatch(ErrorCode.PermissionsViolation);
    } finally {
      await nc.close();
    }
  });

  it("lets costasset's user ask authz, and authz answers", async () => {
    const nats = new NatsConnectionProvider({
      servers: process.env.NATS_URL ?? '',
      name: 'nats-authorization-test',
      requestTimeoutMs: 3000,
      namespace: platform.env.NATS_NAMESPACE,
      user: 'costasset',
      password: process.env.NATS_COSTASSET_PASSWORD,
    });
    await nats.get();
    try {
      const bus = new MessageBus(nats, new Metrics('nats-authorization-test'));
      const reply = await bus.request('authz.principal.resolve', {
        tenantId: 'default',
        userId: 'stranger',
        idpId: 'idp-default',
        groups: [],
      });
      expect(reply.isSystemAdmin).toBe(false);
    } finally {
      await nats.onApplicationShutdown();
    }
  });
});
