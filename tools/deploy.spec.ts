import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';

const root = resolve(__dirname, '..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');

interface ComposeService {
  environment?: Record<string, string | number | boolean> | string[];
  ports?: (string | { published?: string | number; host_ip?: string })[];
  entrypoint?: string | string[];
  command?: string | string[];
}

const compose = () => parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, ComposeService> };

/** A variable's name says it holds a secret (a password, key, token or credential). */
const SECRET_NAME = /PASSWORD|SECRET|_KEY$|TOKEN|CREDENTIAL|ROOT_USER|ACCESS_KEY/;
/** `${VAR:?message}`: docker compose stops when VAR is unset or empty. */
const REQUIRED_VARIABLE = /^\$\{[A-Z][A-Z0-9_]*:\?[^}]+\}$/;

function environmentOf(service: ComposeService): [string, string][] {
  const environment = service.environment ?? {};
  if (Array.isArray(environment)) return environment.map((entry) => entry.split('=', 2) as [string, string]);
  return Object.entries(environment).map(([name, value]) => [name, String(value)]);
}

/** docker-compose.yml as an operator runs it: no credential of its own, only the gateway reachable from the host. */
describe('docker-compose.yml', () => {
  it('holds no secret: each one is a required variable', () => {
    const offending = Object.entries(compose().services).flatMap(([name, service]) =>
      environmentOf(service)
        .filter(([variable]) => SECRET_NAME.test(variable))
        .filter(([, value]) => !REQUIRED_VARIABLE.test(value))
        .map(([variable, value]) => `${name}: ${variable}=${value}`),
    );
    expect(offending).toEqual([]);
  });

  it('gives no secret a default value anywhere in the file', () => {
    const text = read('docker-compose.yml');
    const defaults = [...text.matchAll(/\$\{([A-Z0-9_]+):?-[^}]*\}/g)].map((match) => match[1]).filter((name) => SECRET_NAME.test(name));
    expect(defaults).toEqual([]);
    // values that look like credentials, written out (the old MinIO root, an admin password)
    expect(text).not.toMatch(/corelite-secret|admin-secret|PASSWORD:\s*[A-Za-z0-9]/);
  });

  it('gives the services their own NATS users, S3 identity and MongoDB user, never a root', () => {
    const { services } = compose();
    const env = (name: string) => Object.fromEntries(environmentOf(services[name]));
    expect(env('authz')).toMatchObject({ NATS_USER: 'authz', NATS_PASSWORD: expect.stringMatching(/^\$\{NATS_AUTHZ_PASSWORD:\?/) });
    expect(env('costasset')).toMatchObject({
      NATS_USER: 'costasset',
      NATS_PASSWORD: expect.stringMatching(/^\$\{NATS_COSTASSET_PASSWORD:\?/),
    });
    for (const service of ['costasset', 's3']) {
      expect(env(service).S3_ACCESS_KEY).toMatch(/^\$\{S3_ACCESS_KEY:\?/);
      expect(env(service).S3_SECRET_KEY).toMatch(/^\$\{S3_SECRET_KEY:\?/);
    }
    // the object store has no root identity: its only one is the services', limited to the bucket
    expect(read('docker-compose.yml')).not.toMatch(/MINIO_ROOT|ROOT_ACCESS_KEY/);
    const identities = read('deploy/seaweedfs/start-seaweedfs.sh');
    expect(identities).toContain('"actions":["Read:corelite","Write:corelite","List:corelite","Tagging:corelite"]');
    expect(identities).not.toMatch(/"Admin"|"actions":\["(Read|Write|List)"/);
    for (const service of ['authz', 'costasset'])
      expect(env(service).MONGODB_URI).toMatch(/^mongodb:\/\/corelite:\$\{MONGO_SERVICE_PASSWORD:\?[^}]+\}@mongo:/);
    expect(env('mongo').MONGO_INITDB_ROOT_PASSWORD).toMatch(/^\$\{MONGO_ROOT_PASSWORD:\?/);
    expect(services.nats.command).toEqual(expect.arrayContaining(['-c', '/etc/nats/nats.conf']));
  });

  it('publishes the gateway alone, on 127.0.0.1 unless CORELITE_BIND says otherwise', () => {
    const published = Object.entries(compose().services).filter(([, service]) => (service.ports ?? []).length > 0);
    expect(published.map(([name]) => name)).toEqual(['gateway']);
    expect(published[0][1].ports).toEqual(['${CORELITE_BIND:-127.0.0.1}:${CORELITE_PORT:-8080}:8080']);
  });

  it('.env.example names every variable the file requires, with no value', () => {
    const required = new Set([...read('docker-compose.yml').matchAll(/\$\{([A-Z0-9_]+):\?/g)].map((match) => match[1]));
    const example = read('.env.example');
    const assignments = Object.fromEntries(
      example
        .split('\n')
        .filter((line) => /^[A-Z0-9_]+=/.test(line))
        .map((line) => line.split('=', 2)),
    );
    expect([...required].filter((name) => !(name in assignments))).toEqual([]);
    expect(Object.entries(assignments).filter(([name, value]) => SECRET_NAME.test(name) && value !== '')).toEqual([]);
  });
});
