import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { accountsUrl, LegacyReadError, readLegacyAccounts } from './legacy-client';

describe('readLegacyAccounts', () => {
  let server: Server;
  let port: number;
  const options = { allowPrivateHosts: true, timeoutMs: 2000, maxBytes: 1024 };

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/big/api/v1/accounts') return void res.end(JSON.stringify({ accounts: 'x'.repeat(5000) }));
      if (req.url === '/moved/api/v1/accounts') return void res.writeHead(301, { location: 'http://example.com/' }).end();
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ auth: req.headers.authorization, user: req.headers['x-user-name'] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('appends the accounts path to the legacy URL', () => {
    expect(accountsUrl('https://legacy.example.com/app/?x=1').toString()).toBe('https://legacy.example.com/app/api/v1/accounts');
  });

  it('sends the token and user name', async () => {
    await expect(readLegacyAccounts(`http://127.0.0.1:${port}`, 'tok', 'jdoe', options)).resolves.toEqual({
      auth: 'Bearer tok',
      user: 'jdoe',
    });
  });

  it('refuses loopback hosts at connection time unless allowed, by literal or by name', async () => {
    const strict = { ...options, allowPrivateHosts: false };
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      const error = await readLegacyAccounts(`http://${host}`, 'tok', 'u', strict).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LegacyReadError);
      expect(error).toMatchObject({ permanent: true, message: expect.stringContaining('private or loopback') });
    }
  });

  it('does not follow redirects and caps the body', async () => {
    await expect(readLegacyAccounts(`http://127.0.0.1:${port}/moved`, 'tok', 'u', options)).rejects.toMatchObject({
      permanent: true,
      message: expect.stringContaining('redirects are not followed'),
    });
    await expect(readLegacyAccounts(`http://127.0.0.1:${port}/big`, 'tok', 'u', options)).rejects.toMatchObject({
      permanent: true,
      message: expect.stringContaining('larger than 1024 bytes'),
    });
  });
});
