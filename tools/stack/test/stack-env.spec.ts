import { AZURITE_ACCOUNT, resolveSettings } from '../settings';
import { buildStackEnv, describeStackEnv } from '../stack-env';

describe('env.json', () => {
  it('points every app at the local stack of the profile', () => {
    const env = {};
    expect(buildStackEnv(resolveSettings('test', env, '/repo'), env)).toEqual({
      MONGODB_URI: 'mongodb://127.0.0.1:37017/corelite',
      NATS_URL: 'nats://127.0.0.1:14222',
      S3_ENDPOINT: 'http://127.0.0.1:14569',
      S3_ACCESS_KEY: 'S3RVER',
      S3_SECRET_KEY: 'S3RVER',
      S3_BUCKET: 'corelite',
      S3_REGION: 'us-east-1',
      LDAP_URL: 'ldap://127.0.0.1:13890',
      LDAP_BASE_DN: 'dc=corelite,dc=local',
      LDAP_BIND_DN: 'cn=admin,dc=corelite,dc=local',
      LDAP_BIND_PASSWORD: 'admin-secret',
      SMTP_URL: 'smtp://127.0.0.1:12525',
      AZURITE_BLOB_URL: 'http://127.0.0.1:20000/devstoreaccount1',
      AZURITE_ACCOUNT_NAME: 'devstoreaccount1',
      AZURITE_ACCOUNT_KEY: AZURITE_ACCOUNT.key,
    });
  });

  it("gives the local nats's users: the tools user as NATS_USER, each service's password under its name", () => {
    const passwords = { authz: 'authz-pw', costasset: 'costasset-pw', tools: 'tools-pw' };
    expect(buildStackEnv(resolveSettings('test', {}, '/repo'), {}, passwords)).toMatchObject({
      NATS_USER: 'tools',
      NATS_PASSWORD: 'tools-pw',
      NATS_AUTHZ_PASSWORD: 'authz-pw',
      NATS_COSTASSET_PASSWORD: 'costasset-pw',
    });
    const external = { NATS_URL: 'nats://bus:4222', NATS_AUTHZ_PASSWORD: 'real-authz-pw' };
    expect(buildStackEnv(resolveSettings('test', external, '/repo'), external, passwords)).toMatchObject({
      NATS_URL: 'nats://bus:4222',
      NATS_AUTHZ_PASSWORD: 'real-authz-pw',
    });
    expect(buildStackEnv(resolveSettings('test', external, '/repo'), external, passwords)).not.toHaveProperty('NATS_USER');
  });

  it('passes a real service and its credentials through', () => {
    const env = {
      MONGODB_URI: 'mongodb://db/x',
      S3_ENDPOINT: 'https://minio:9000',
      S3_ACCESS_KEY: 'minio',
      S3_SECRET_KEY: 'minio-secret',
      S3_REGION: 'eu-west-1',
      S3_BUCKET: 'assets',
      LDAP_URL: 'ldaps://dir.example',
      LDAP_BASE_DN: 'dc=example,dc=com',
      LDAP_BIND_DN: 'cn=svc,dc=example,dc=com',
      LDAP_BIND_PASSWORD: 'svc-secret',
      SMTP_URL: 'smtp://mailer:secret@mail.example.com:587',
      AZURITE_BLOB_URL: 'https://billingexports.blob.core.windows.net',
      AZURITE_ACCOUNT_NAME: 'billingexports',
      AZURITE_ACCOUNT_KEY: 'real-account-key',
    };
    expect(buildStackEnv(resolveSettings('dev', env, '/repo'), env)).toEqual({ ...env, NATS_URL: 'nats://127.0.0.1:4222' });
  });

  it('ignores S3 keys from the environment while s3 is the local s3rver (it only knows S3RVER)', () => {
    const env = { S3_ACCESS_KEY: 'minio', S3_SECRET_KEY: 'x' };
    expect(buildStackEnv(resolveSettings('dev', env, '/repo'), env)).toMatchObject({ S3_ACCESS_KEY: 'S3RVER', S3_SECRET_KEY: 'S3RVER' });
  });

  it("gives the local azurite's development account, whatever account variables the environment has", () => {
    const env = { AZURITE_ACCOUNT_NAME: 'other', AZURITE_ACCOUNT_KEY: 'other-key' };
    expect(buildStackEnv(resolveSettings('dev', env, '/repo'), env)).toMatchObject({
      AZURITE_BLOB_URL: 'http://127.0.0.1:10000/devstoreaccount1',
      AZURITE_ACCOUNT_NAME: 'devstoreaccount1',
      AZURITE_ACCOUNT_KEY: AZURITE_ACCOUNT.key,
    });
  });

  it('describes itself without secrets or passwords inside URLs', () => {
    const env = { MONGODB_URI: 'mongodb://user:pw@db/x' };
    const lines = describeStackEnv(
      buildStackEnv(resolveSettings('dev', env, '/repo'), env, { authz: 'a-secret', costasset: 'c-secret', tools: 't-secret' }),
    );
    expect(lines).toContain('MONGODB_URI=mongodb://user:***@db/x');
    expect(lines).toContain('NATS_USER=tools');
    expect(lines).toContain('AZURITE_BLOB_URL=http://127.0.0.1:10000/devstoreaccount1');
    expect(lines.join('\n')).not.toMatch(/S3_SECRET_KEY|LDAP_BIND_PASSWORD|admin-secret|:pw@|PASSWORD|-secret|AZURITE_ACCOUNT_KEY/);
  });
});
