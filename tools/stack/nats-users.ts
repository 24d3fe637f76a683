import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readOrCreateDevKey } from '@lib/config';
import { EVENT_PAYLOADS, REQUEST_PAYLOADS } from '@lib/messaging';
import { REPO_ROOT } from './settings';

/**
 * NATS users and what each may publish and subscribe to: the same rules for the local stack
 * (`.stack/<profile>/nats.conf`, passwords generated into `.stack/<profile>/keys/`) and for
 * docker-compose (deploy/nats/nats.conf, passwords from the environment).
 */
export const SERVICE_NATS_USERS = ['authz', 'costasset'] as const;
/** Tests and tools that talk to NATS directly (the local stack only). */
export const TOOLS_NATS_USER = 'tools';

export type ServiceNatsUser = (typeof SERVICE_NATS_USERS)[number];
export type NatsUserName = ServiceNatsUser | typeof TOOLS_NATS_USER;

/** The requests of the messaging contract: authz answers them all, and only authz may subscribe to them. */
export const AUTHZ_REQUEST_SUBJECTS = Object.keys(REQUEST_PAYLOADS);
/** Every event of the contract: costasset hears each one by name (a wildcard could overhear requests). */
const EVENT_SUBJECTS = Object.keys(EVENT_PAYLOADS);

export interface NatsPermissions {
  publish: { allow: string[] };
  subscribe: { allow: string[]; deny?: string[] };
  /** May publish to the reply subject of a request it received (and only once). */
  allowResponses?: boolean;
}

/** A subject as it is without and with a deployment's namespace (NATS_NAMESPACE, one token). */
const inAnyNamespace = (subjects: string[]) => subjects.flatMap((subject) => [subject, `*.${subject}`]);

const INBOX = '_INBOX.>';

export const NATS_PERMISSIONS: Record<NatsUserName, NatsPermissions> = {
  // answers its requests, publishes its events and hears its own
  authz: {
    publish: { allow: inAnyNamespace(['authz.>', 'core.>']) },
    subscribe: { allow: [...inAnyNamespace(['authz.>', 'core.>']), INBOX] },
    allowResponses: true,
  },
  // asks authz, hears every event, publishes its own, and runs its jobs on JetStream (the API, acks)
  costasset: {
    publish: { allow: [...inAnyNamespace(['costasset.>', 'deadletter.>', ...AUTHZ_REQUEST_SUBJECTS]), '$JS.API.>', '$JS.ACK.>'] },
    subscribe: {
      allow: [...inAnyNamespace(['costasset.>', ...EVENT_SUBJECTS.filter((subject) => !subject.startsWith('costasset.'))]), INBOX],
      deny: inAnyNamespace(AUTHZ_REQUEST_SUBJECTS),
    },
  },
  tools: {
    publish: { allow: ['>'] },
    subscribe: { allow: ['>'] },
  },
};

/** The variable that holds a user's password in a shared environment (env.json, docker-compose's .env). */
export const natsPasswordVariable = (user: NatsUserName) => `NATS_${user.toUpperCase()}_PASSWORD`;

/** Each user's password, generated once into `<dataDir>/keys/` (readable by its owner only). */
export function localNatsPasswords(dataDir: string): Record<NatsUserName, string> {
  const dir = path.join(dataDir, 'keys');
  const password = (user: NatsUserName) => readOrCreateDevKey(dir, `nats-${user}.password`, () => randomBytes(24).toString('base64url'));
  return { authz: password('authz'), costasset: password('costasset'), tools: password(TOOLS_NATS_USER) };
}

const list = (subjects: string[]) => `[${subjects.map((subject) => JSON.stringify(subject)).join(', ')}]`;

function userBlock(user: NatsUserName, password: string): string[] {
  const { publish, subscribe, allowResponses } = NATS_PERMISSIONS[user];
  return [
    '    {',
    `      user: ${JSON.stringify(user)}`,
    `      password: ${password}`,
    '      permissions: {',
    `        publish: { allow: ${list(publish.allow)} }`,
    `        subscribe: { allow: ${list(subscribe.allow)}${subscribe.deny ? `, deny: ${list(subscribe.deny)}` : ''} }`,
    ...(allowResponses ? ['        allow_responses: true'] : []),
    '      }',
    '    }',
  ];
}

/**
 * nats-server's `authorization` block for `users`. `password` gives each one's value as it is
 * written in the file: a quoted literal, or `$VARIABLE` (nats-server reads it from its environment).
 */
export function renderNatsAuthorization(users: NatsUserName[], password: (user: NatsUserName) => string): string {
  return ['authorization {', '  users: [', ...users.flatMap((user) => userBlock(user, password(user))), '  ]', '}', ''].join('\n');
}

/** docker-compose's users, their passwords from nats's environment. */
export const DEPLOY_NATS_CONF = path.join('deploy', 'nats', 'nats.conf');

export function renderDeployNatsConf(): string {
  return [
    "# docker-compose's NATS users (mounted as /etc/nats/nats.conf): each service's own, with the subjects",
    "# it may use; clients without a user are refused. The same rules as the local stack's, written by",
    '# `npx tsx tools/stack/nats-users.ts` from tools/stack/nats-users.ts and the messaging contract (a',
    "# unit test fails when they differ). The passwords come from nats's environment (docker-compose.yml:",
    '# NATS_AUTHZ_PASSWORD, NATS_COSTASSET_PASSWORD).',
    renderNatsAuthorization([...SERVICE_NATS_USERS], (user) => `$${natsPasswordVariable(user)}`),
  ].join('\n');
}

/** The environment of one service with its own NATS user, when the shared environment holds its password (`NATS_<USER>_PASSWORD`). */
export function withServiceNatsUser(env: NodeJS.ProcessEnv, service: ServiceNatsUser): NodeJS.ProcessEnv {
  const password = env[natsPasswordVariable(service)];
  if (!password) return env;
  const own: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(env).filter(([name]) => !/^NATS_[A-Z]+_PASSWORD$/.test(name)));
  return { ...own, NATS_USER: service, NATS_PASSWORD: password };
}

if (require.main === module) fs.writeFileSync(path.join(REPO_ROOT, DEPLOY_NATS_CONF), renderDeployNatsConf());
