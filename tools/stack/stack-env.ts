import * as fs from 'node:fs';
import * as path from 'node:path';
import { resolveSettings, StackSettings } from './settings';
import { StackEnv, StackError } from './types';

/**
 * The environment the apps need. Local components get the stack's own URLs and credentials;
 * a component replaced by a real service keeps the URL and credentials the environment gives.
 */
export function buildStackEnv(settings: StackSettings, env: NodeJS.ProcessEnv): StackEnv {
  const { external, localUrls } = settings;
  const s3External = external.s3 !== undefined;
  const ldapExternal = external.ldap !== undefined;
  return {
    MONGODB_URI: external.mongo ?? localUrls.mongo,
    NATS_URL: external.nats ?? localUrls.nats,
    S3_ENDPOINT: external.s3 ?? localUrls.s3,
    S3_ACCESS_KEY: (s3External && env.S3_ACCESS_KEY) || settings.s3.accessKey,
    S3_SECRET_KEY: (s3External && env.S3_SECRET_KEY) || settings.s3.secretKey,
    S3_BUCKET: settings.s3.bucket,
    S3_REGION: (s3External && env.S3_REGION) || settings.s3.region,
    LDAP_URL: external.ldap ?? localUrls.ldap,
    LDAP_BASE_DN: (ldapExternal && env.LDAP_BASE_DN) || settings.ldap.baseDn,
    LDAP_BIND_DN: (ldapExternal && env.LDAP_BIND_DN) || settings.ldap.adminDn,
    LDAP_BIND_PASSWORD: (ldapExternal && env.LDAP_BIND_PASSWORD) || settings.ldap.adminPassword,
  };
}

const SECRET_KEYS: ReadonlySet<keyof StackEnv> = new Set(['S3_SECRET_KEY', 'LDAP_BIND_PASSWORD']);

/** env.json without its secrets, for printing. */
export function describeStackEnv(stackEnv: StackEnv): string[] {
  return (Object.keys(stackEnv) as (keyof StackEnv)[])
    .filter((key) => !SECRET_KEYS.has(key))
    .map((key) => `${key}=${redactUserInfo(stackEnv[key])}`);
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
