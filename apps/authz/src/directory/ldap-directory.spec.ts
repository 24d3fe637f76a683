import { createServer, Server } from 'node:net';
import { Logger } from '@nestjs/common';
import { ProblemException } from '@lib/core';
import { describeConnectionFailure, LdapDirectory } from './ldap-directory';
import { LdapSettings, LdapSettingsSource } from './ldap-settings';

class StubSource extends LdapSettingsSource {
  constructor(private readonly settings: LdapSettings | null) {
    super();
  }
  forTenant(): Promise<LdapSettings | null> {
    return Promise.resolve(this.settings);
  }
}

const settings = (host: string): LdapSettings => ({
  base: 'dc=example,dc=com',
  host,
  username: 'cn=admin,dc=example,dc=com',
  password: 'Sup3r-S3cret',
  useSSL: false,
});

async function problemOf(promise: Promise<unknown>): Promise<ProblemException> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ProblemException);
    return error as ProblemException;
  }
  throw new Error('expected a problem');
}

/** A port nobody listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('LdapDirectory', () => {
  beforeAll(() => Logger.overrideLogger(false));
  afterAll(() => Logger.overrideLogger(['log', 'error', 'warn', 'debug', 'verbose']));

  it('answers 404 DIRECTORY_NOT_CONFIGURED when the tenant has no _ldap_config', async () => {
    const problem = await problemOf(new LdapDirectory(new StubSource(null)).groupsOf('t1', 'alice'));
    expect(problem.getStatus()).toBe(404);
    expect(problem.code).toBe('DIRECTORY_NOT_CONFIGURED');
  });

  it('answers 503 DIRECTORY_UNAVAILABLE for a refused connection, without the password', async () => {
    const port = await closedPort();
    const problem = await problemOf(new LdapDirectory(new StubSource(settings(`127.0.0.1:${port}`))).groupsOf('t1', 'alice'));
    expect(problem.getStatus()).toBe(503);
    expect(problem.code).toBe('DIRECTORY_UNAVAILABLE');
    expect(JSON.stringify(problem.toProblem())).not.toContain('Sup3r-S3cret');
  });

  it('times out against a server that accepts but never answers', async () => {
    const sockets: import('node:net').Socket[] = [];
    const silent: Server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      const started = Date.now();
      const directory = new LdapDirectory(new StubSource(settings(`127.0.0.1:${port}`)), { connectMs: 300, operationMs: 300 });
      const problem = await problemOf(directory.groupsOf('t1', 'alice'));
      expect(problem.code).toBe('DIRECTORY_UNAVAILABLE');
      expect(problem.message).toContain('timed out');
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      sockets.forEach((s) => s.destroy());
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('answers 503 DIRECTORY_UNAVAILABLE for a host setting that is not an address', async () => {
    const problem = await problemOf(new LdapDirectory(new StubSource(settings('http://example.com'))).groupsOf('t1', 'alice'));
    expect(problem.getStatus()).toBe(503);
    expect(problem.code).toBe('DIRECTORY_UNAVAILABLE');
  });

  it('describes network failures without details', () => {
    expect(describeConnectionFailure(Object.assign(new Error('connect ECONNREFUSED 1.2.3.4:389'), { code: 'ECONNREFUSED' }))).toBe(
      'connection refused',
    );
    expect(describeConnectionFailure(new Error('Connection timeout'))).toBe('timed out');
    expect(describeConnectionFailure(new Error('SearchRequest: Operation timed out'))).toBe('timed out');
    expect(describeConnectionFailure(new Error('anything else'))).toBe('connection failed');
  });
});
