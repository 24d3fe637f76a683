import * as path from 'node:path';
import { resolveExternal, resolvePorts, resolveProfile, resolveSettings } from '../settings';
import { StackError } from '../types';

describe('stack settings', () => {
  it('uses the dev profile unless STACK_PROFILE or an explicit profile says otherwise', () => {
    expect(resolveProfile(undefined, {})).toBe('dev');
    expect(resolveProfile(undefined, { STACK_PROFILE: 'test' })).toBe('test');
    expect(resolveProfile('dev', { STACK_PROFILE: 'test' })).toBe('dev');
  });

  it('refuses an unknown profile', () => {
    expect(() => resolveProfile('staging', {})).toThrow(StackError);
  });

  it('gives each profile its own ports', () => {
    expect(resolvePorts('dev', {})).toEqual({
      nats: 4222,
      natsMonitor: 8222,
      ldap: 3890,
      s3: 4569,
      mongo: 27017,
      smtp: 2525,
      azurite: 10000,
    });
    expect(resolvePorts('test', {})).toEqual({
      nats: 14222,
      natsMonitor: 18222,
      ldap: 13890,
      s3: 14569,
      mongo: 37017,
      smtp: 12525,
      azurite: 20000,
    });
  });

  it('lets the environment override a port and rejects a non-port', () => {
    expect(resolvePorts('test', { STACK_MONGO_PORT: '47017', STACK_NATS_MONITOR_PORT: '', STACK_AZURITE_PORT: '30000' })).toMatchObject({
      mongo: 47017,
      natsMonitor: 18222,
      azurite: 30000,
    });
    expect(() => resolvePorts('dev', { STACK_S3_PORT: '70000' })).toThrow(/STACK_S3_PORT/);
    expect(() => resolvePorts('dev', { STACK_LDAP_PORT: 'abc' })).toThrow(/STACK_LDAP_PORT/);
  });

  it('puts the data under .stack/<profile> at the repo root and derives the local URLs from the ports', () => {
    const settings = resolveSettings('test', { STACK_S3_PORT: '9000' }, '/repo');
    expect(settings.dataDir).toBe(path.join('/repo', '.stack', 'test'));
    expect(settings.localUrls).toEqual({
      nats: 'nats://127.0.0.1:14222',
      ldap: 'ldap://127.0.0.1:13890',
      s3: 'http://127.0.0.1:9000',
      mongo: 'mongodb://127.0.0.1:37017/corelite',
      smtp: 'smtp://127.0.0.1:12525',
      azurite: 'http://127.0.0.1:20000/devstoreaccount1',
    });
  });

  describe('replacement by a real service', () => {
    const local = resolveSettings('test', {}, '/repo').localUrls;

    it('marks a component external when its URL variable is set', () => {
      const external = resolveExternal(
        {
          MONGODB_URI: 'mongodb://db:27017/x',
          NATS_URL: 'nats://n:4222',
          S3_ENDPOINT: 'https://s3.example',
          LDAP_URL: 'ldaps://dir',
          AZURITE_BLOB_URL: 'https://acct.blob.core.windows.net',
        },
        local,
      );
      expect(external).toEqual({
        mongo: 'mongodb://db:27017/x',
        nats: 'nats://n:4222',
        s3: 'https://s3.example',
        ldap: 'ldaps://dir',
        azurite: 'https://acct.blob.core.windows.net',
      });
    });

    it('ignores empty variables and the URLs this stack wrote itself (an env.json loaded into the environment)', () => {
      expect(
        resolveExternal({ MONGODB_URI: '', NATS_URL: local.nats, S3_ENDPOINT: local.s3, AZURITE_BLOB_URL: local.azurite }, local),
      ).toEqual({});
    });
  });

  it('takes the LDAP admin password and bucket from the environment, with defaults', () => {
    expect(resolveSettings('dev', {}, '/repo')).toMatchObject({
      ldap: { baseDn: 'dc=corelite,dc=local', adminDn: 'cn=admin,dc=corelite,dc=local', adminPassword: 'admin-secret' },
      s3: { accessKey: 'S3RVER', secretKey: 'S3RVER', bucket: 'corelite', region: 'us-east-1' },
      azurite: { accountName: 'devstoreaccount1', accountKey: expect.stringMatching(/^Eby8vdM02xNOcqFl.+==$/) },
    });
    expect(resolveSettings('dev', { LDAP_ADMIN_PASSWORD: 'p', S3_BUCKET: 'b' }, '/repo')).toMatchObject({
      ldap: { adminPassword: 'p' },
      s3: { bucket: 'b' },
    });
  });
});
