import * as fs from 'node:fs';
import * as path from 'node:path';
import { natsPasswordVariable, NatsUserName, SERVICE_NATS_USERS, TOOLS_NATS_USER } from './nats-users';
import { resolveSettings, StackSettings } from './settings';
import { StackEnv, StackError } from './types';

type NatsCredentials = Pick<StackEnv, 'NATS_USER' | 'NATS_PASSWORD' | 'NATS_AUTHZ_PASSWORD' | 'NATS_COSTASSET_PASSWORD'>;

const NATS_CREDENTIAL_VARIABLES = [
  'NATS_USER',
  'NATS_PASSWORD',
  ...SERVICE_NATS_USERS.map(natsPasswordVariable),
] as (keyof NatsCredentials)[];

/** The local server's users (the tools user as NATS_USER), or what the environment gives for a real server. */
function natsCredentials(env: NodeJS.ProcessEnv, localPasswords: Record<NatsUserName, string> | undefined): NatsCredentials {
  if (localPasswords) {
    return {
      NATS_USER: TOOLS_NATS_USER,
      NATS_PASSWORD: localPasswords[TOOLS_NATS_USER],
      NATS_AUTHZ_PASSWORD: localPasswords.authz,
      NATS_COSTASSET_PASSWORD: localPasswords.costasset,
    };
  }
  return Object.fromEntries(NATS_CREDENTIAL_VARIABLES.filter((name) => env[name]).map((name) => [name, env[name]]));
}

/**
 * The environment the apps need. Local components get the stack's own URLs and credentials (for
 * a local nats, the passwords of its users: `localNatsPasswords`); a component replaced by a real
 * service keeps the URL and credentials the environment gives.
 */
export function buildStackEnv(
  settings: StackSettings,
  env: NodeJS.ProcessEnv,
  localNatsPasswords?: Record<NatsUserName, string>,
): StackEnv {
  const { external, localUrls } = settings;
  const s3External = external.s3 !== undefined;
  const ldapExternal = external.ldap !== undefined;
  const azuriteExternal = external.azurite !== undefined;
  return {
    MONGODB_URI: external.mongo ?? localUrls.mongo,
    NATS_URL: external.nats ?? localUrls.nats,
    ...natsCredentials(env, external.nats === undefined ? localNatsPasswords : undefined),
    S3_ENDPOINT: external.s3 ?? localUrls.s3,
    S3_ACCESS_KEY: (s3External && env.S3_ACCESS_KEY) || settings.s3.accessKey,
    S3_SECRET_KEY: (s3External && env.S3_SECRET_KEY) || settings.s3.secretKey,
    S3_BUCKET: settings.s3.bucket,
    S3_REGION: (s3External && env.S3_REGION) || settings.s3.region,
    LDAP_URL: external.ldap ?? localUrls.ldap,
    LDAP_BASE_DN: (ldapExternal && env.LDAP_BASE_DN) || settings.ldap.baseDn,
    LDAP_BIND_DN: (ldapExternal && env.LDAP_BIND_DN) || settings.ldap.adminDn,
    LDAP_BIND_PASSWORD: (ldapExternal && env.LDAP_BIND_PASSWORD) || settings.ldap.adminPassword,
    SMTP_URL: external.smtp ?? localUrls.smtp,
    AZURITE_BLOB_URL: external.azurite ?? localUrls.azurite,
    AZURITE_ACCOUNT_NAME: (azuriteExternal && env.AZURITE_ACCOUNT_NAME) || settings.azurite.accountName,
    AZURITE_ACCOUNT_KEY: (azuriteExternal && env.AZURITE_ACCOUNT_KEY) || settings.azurite.accountKey,
  };
}

const SECRET_KEYS: ReadonlySet<keyof StackEnv> = new Set([
  'S3_SECRET_KEY',
  'LDAP_BIND_PASSWORD',
  'NATS_PASSWORD',
  'NATS_AUTHZ_PASSWORD',
  'NATS_COSTASSET_PASSWORD',
  'AZURITE_ACCOUNT_KEY',
]);

/** env.json without its secrets, for printing. */
export function describeStackEnv(stackEnv: StackEnv): string[] {
  return (Object.keys(stackEnv) as (keyof StackEnv)[])
    .filter((key) => !SECRET_KEYS.has(key))
    .map((key) => `${key}=${redactUserInfo(stackEnv[key] ?? '')}`);
}

function redactUserInfo(value: string): string {
  return value.replace(/(\/\/[^:/@]+:)[^@/]*@/, '$1***@');
}

export function stackEnvPath(settings: Pick<StackSettings, 'dataDir'>): string {
  return path.join(settings.dataDir, 'env.json');
}

export function writeStackEnv(settings: StackSettings, stackEnv: StackEnv): string {
  const file = stackEnvPath(settings);
  fs.mkdirSync(settings.dataDir, { recursive: true });
  fs.writeFileSync(file, JSON.stringify(stackEnv, null, 2) + '\n', { mode: 0o600 });
  return file;
}

/** The environment the last `up` of this profile wrote. */
export function readStackEnv(profile?: string): StackEnv {
  const settings = resolveSettings(profile, process.env);
  const file = stackEnvPath(settings);
  if (!fs.existsSync(file)) {
    throw new StackError(`${file} does not exist; run 'STACK_PROFILE=${settings.profile} npm run stack -- up' first`);
  }
  return JSON.parse(fs.readFileSync(file, 'utf8')) as StackEnv;
}
