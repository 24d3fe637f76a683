export const COMPONENT_NAMES = ['nats', 'ldap', 's3', 'mongo', 'smtp', 'azurite'] as const;

export type ComponentName = (typeof COMPONENT_NAMES)[number];

export type ComponentState = 'running' | 'stopped' | 'external';

export interface StackOptions {
  /** Defaults to `STACK_PROFILE`, then `dev`. */
  profile?: string;
  /** Defaults to every component. */
  components?: ComponentName[];
  /** Environment to read ports, external URLs and secrets from; defaults to `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Progress lines; defaults to stderr. Pass `() => undefined` to silence. */
  log?: (line: string) => void;
  /** More programs to install in the same apt-get run as the components' (e.g. the gateway's nginx). */
  programs?: RequiredProgram[];
}

export interface StackDownOptions extends StackOptions {
  /** Also delete the profile's data directory (`.stack/<profile>/`). Only with every component. */
  purge?: boolean;
  /**
   * Also delete the stored data of the selected components (`.stack/<profile>/<component>/`:
   * the store's documents, JetStream streams, objects, directory), keeping keys, logs and env.json.
   */
  wipe?: boolean;
}

/** What the apps need to reach the stack; written to `.stack/<profile>/env.json`. */
export interface StackEnv {
  MONGODB_URI: string;
  NATS_URL: string;
  /** The tools user's (tests that talk to NATS directly); each service runs as its own user (`withServiceNatsUser`). */
  NATS_USER?: string;
  NATS_PASSWORD?: string;
  NATS_AUTHZ_PASSWORD?: string;
  NATS_COSTASSET_PASSWORD?: string;
  S3_ENDPOINT: string;
  S3_ACCESS_KEY: string;
  S3_SECRET_KEY: string;
  S3_BUCKET: string;
  S3_REGION: string;
  LDAP_URL: string;
  LDAP_BASE_DN: string;
  LDAP_BIND_DN: string;
  LDAP_BIND_PASSWORD: string;
  /** The SMTP server email notifications go through (the local mailbox server, or SMTP_URL). */
  SMTP_URL: string;
  /** The Azure Blob service account URL (`http://127.0.0.1:<port>/devstoreaccount1` for the local azurite), and its account. */
  AZURITE_BLOB_URL: string;
  AZURITE_ACCOUNT_NAME: string;
  AZURITE_ACCOUNT_KEY: string;
}

export interface ComponentStatus {
  name: ComponentName;
  state: ComponentState;
  url: string;
  pid?: number;
  /** False when the process is alive but does not answer its health check. */
  healthy?: boolean;
}

/** A program a component needs, and the Debian package that ships it. */
export interface RequiredProgram {
  program: string;
  aptPackage: string;
}

export class StackError extends Error {
  override name = 'StackError';
}
