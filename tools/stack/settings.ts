import * as path from 'node:path';
import { ComponentName, StackError } from './types';

export interface StackPorts {
  nats: number;
  natsMonitor: number;
  ldap: number;
  s3: number;
  mongo: number;
  smtp: number;
  azurite: number;
}

export interface StackSettings {
  profile: string;
  repoRoot: string;
  /** `.stack/<profile>/` at the repo root. */
  dataDir: string;
  ports: StackPorts;
  /** The URL each local component answers on. */
  localUrls: Record<ComponentName, string>;
  /** Components replaced by a real service, with the URL the environment gives for it. */
  external: Partial<Record<ComponentName, string>>;
  /** The local s3rver's keys and region, and the bucket (`S3_BUCKET`, default `corelite`). */
  s3: { accessKey: string; secretKey: string; bucket: string; region: string };
  /** The local azurite's account (the emulator's well-known development account). */
  azurite: { accountName: string; accountKey: string };
  ldap: { baseDn: string; adminDn: string; adminPassword: string };
}

export const DEFAULT_PROFILE = 'dev';

export const PROFILE_PORTS: Record<string, StackPorts> = {
  dev: { nats: 4222, natsMonitor: 8222, ldap: 3890, s3: 4569, mongo: 27017, smtp: 2525, azurite: 10000 },
  test: { nats: 14222, natsMonitor: 18222, ldap: 13890, s3: 14569, mongo: 37017, smtp: 12525, azurite: 20000 },
};

const PORT_ENV: Record<keyof StackPorts, string> = {
  nats: 'STACK_NATS_PORT',
  natsMonitor: 'STACK_NATS_MONITOR_PORT',
  ldap: 'STACK_LDAP_PORT',
  s3: 'STACK_S3_PORT',
  mongo: 'STACK_MONGO_PORT',
  smtp: 'STACK_SMTP_PORT',
  azurite: 'STACK_AZURITE_PORT',
};

/** The variable that, when set, replaces a component by a real service. */
export const EXTERNAL_URL_ENV: Record<ComponentName, string> = {
  mongo: 'MONGODB_URI',
  nats: 'NATS_URL',
  s3: 'S3_ENDPOINT',
  ldap: 'LDAP_URL',
  smtp: 'SMTP_URL',
  azurite: 'AZURITE_BLOB_URL',
};

export const LDAP_BASE_DN = 'dc=corelite,dc=local';
export const LDAP_ADMIN_DN = `cn=admin,${LDAP_BASE_DN}`;
export const DEFAULT_LDAP_ADMIN_PASSWORD = 'admin-secret';
export const S3RVER_KEY = 'S3RVER';
export const S3_REGION = 'us-east-1';
export const MONGO_DATABASE = 'corelite';
/**
 * The Azure Storage emulator's development account: the name and key Microsoft publishes for
 * azurite (and the older Storage Emulator), the same on every machine. Not a secret.
 */
export const AZURITE_ACCOUNT = {
  name: 'devstoreaccount1',
  key: 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==',
} as const;

export const REPO_ROOT = path.resolve(__dirname, '..', '..');

export function resolveProfile(explicit: string | undefined, env: NodeJS.ProcessEnv): string {
  const profile = explicit ?? (env.STACK_PROFILE || DEFAULT_PROFILE);
  if (!PROFILE_PORTS[profile]) {
    throw new StackError(`unknown stack profile '${profile}' (known: ${Object.keys(PROFILE_PORTS).join(', ')})`);
  }
  return profile;
}

export function resolvePorts(profile: string, env: NodeJS.ProcessEnv): StackPorts {
  const ports = { ...PROFILE_PORTS[profile] };
  for (const key of Object.keys(PORT_ENV) as (keyof StackPorts)[]) {
    const raw = env[PORT_ENV[key]];
    if (raw === undefined || raw === '') continue;
    const port = Number(raw);
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      throw new StackError(`${PORT_ENV[key]}='${raw}' is not a port number`);
    }
    ports[key] = port;
  }
  return ports;
}

export function localUrlsFor(ports: StackPorts): Record<ComponentName, string> {
  return {
    nats: `nats://127.0.0.1:${ports.nats}`,
    ldap: `ldap://127.0.0.1:${ports.ldap}`,
    s3: `http://127.0.0.1:${ports.s3}`,
    mongo: `mongodb://127.0.0.1:${ports.mongo}/${MONGO_DATABASE}`,
    smtp: `smtp://127.0.0.1:${ports.smtp}`,
    azurite: `http://127.0.0.1:${ports.azurite}/${AZURITE_ACCOUNT.name}`,
  };
}

/**
 * A component is external when its URL variable is set to anything other than the URL this
 * stack itself writes to env.json: a process that loaded env.json into its environment (the
 * test runner, an e2e test) can still stop and restart the local component.
 */
export function resolveExternal(env: NodeJS.ProcessEnv, localUrls: Record<ComponentName, string>): Partial<Record<ComponentName, string>> {
  const external: Partial<Record<ComponentName, string>> = {};
  for (const name of Object.keys(EXTERNAL_URL_ENV) as ComponentName[]) {
    const value = env[EXTERNAL_URL_ENV[name]];
    if (value && value !== localUrls[name]) external[name] = value;
  }
  return external;
}

export function resolveSettings(explicitProfile: string | undefined, env: NodeJS.ProcessEnv, repoRoot = REPO_ROOT): StackSettings {
  const profile = resolveProfile(explicitProfile, env);
  const ports = resolvePorts(profile, env);
  const localUrls = localUrlsFor(ports);
  return {
    profile,
    repoRoot,
    dataDir: path.join(repoRoot, '.stack', profile),
    ports,
    localUrls,
    external: resolveExternal(env, localUrls),
    s3: { accessKey: S3RVER_KEY, secretKey: S3RVER_KEY, bucket: env.S3_BUCKET || 'corelite', region: S3_REGION },
    azurite: { accountName: AZURITE_ACCOUNT.name, accountKey: AZURITE_ACCOUNT.key },
    ldap: {
      baseDn: LDAP_BASE_DN,
      adminDn: LDAP_ADMIN_DN,
      adminPassword: env.LDAP_ADMIN_PASSWORD || DEFAULT_LDAP_ADMIN_PASSWORD,
    },
  };
}
