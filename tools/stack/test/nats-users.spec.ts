import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EVENT_PAYLOADS, REQUEST_PAYLOADS } from '@lib/messaging';
import {
  AUTHZ_REQUEST_SUBJECTS,
  DEPLOY_NATS_CONF,
  localNatsPasswords,
  NATS_PERMISSIONS,
  renderDeployNatsConf,
  withServiceNatsUser,
} from '../nats-users';
import { REPO_ROOT } from '../settings';

describe('NATS users', () => {
  it("keeps every request subject of the messaging contract authz's alone", () => {
    expect(AUTHZ_REQUEST_SUBJECTS).toEqual(expect.arrayContaining(['authz.principal.resolve']));
    expect([...AUTHZ_REQUEST_SUBJECTS].sort()).toEqual(Object.keys(REQUEST_PAYLOADS).sort());
    for (const subject of AUTHZ_REQUEST_SUBJECTS) {
      expect(NATS_PERMISSIONS.costasset.subscribe.deny).toEqual(expect.arrayContaining([subject, `*.${subject}`]));
      expect(NATS_PERMISSIONS.costasset.publish.allow).toEqual(expect.arrayContaining([subject, `*.${subject}`]));
    }
    expect(NATS_PERMISSIONS.costasset.publish.allow).not.toContain('_INBOX.>');
    expect(NATS_PERMISSIONS.costasset.allowResponses).toBeUndefined();
  });

  it("gives docker-compose's nats the same users, their passwords from its environment", () => {
    const deployed = readFileSync(join(REPO_ROOT, DEPLOY_NATS_CONF), 'utf8');
    // after a change of the contract or the rules: `npx tsx tools/stack/nats-users.ts` writes it again
    expect(deployed).toBe(renderDeployNatsConf());
    expect(deployed).toContain('password: $NATS_AUTHZ_PASSWORD\n');
    expect(deployed).not.toContain('"tools"');
  });

  it('lets costasset hear every event by name, and no wildcard over authz or core', () => {
    const allowed = NATS_PERMISSIONS.costasset.subscribe.allow;
    for (const subject of Object.keys(EVENT_PAYLOADS).filter((name) => !name.startsWith('costasset.'))) {
      expect(allowed).toEqual(expect.arrayContaining([subject, `*.${subject}`]));
    }
    expect(allowed).toEqual(expect.arrayContaining(['costasset.>', '*.costasset.>']));
    expect(allowed.filter((subject) => /^(\*\.)?(authz|core)\./.test(subject) && /[*>]/.test(subject.replace(/^\*\./, '')))).toEqual([]);
  });

  it('generates each local password once, readable by its owner only', () => {
    const dir = mkdtempSync(join(tmpdir(), 'nats-users-'));
    try {
      const first = localNatsPasswords(dir);
      expect(new Set(Object.values(first)).size).toBe(3);
      expect(localNatsPasswords(dir)).toEqual(first);
      expect(statSync(join(dir, 'keys', 'nats-costasset.password')).mode & 0o777).toBe(0o600);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("runs a service as its own user, without the other users' passwords", () => {
    const shared = {
      NATS_URL: 'nats://n:4222',
      NATS_USER: 'tools',
      NATS_PASSWORD: 'tools-pw',
      NATS_AUTHZ_PASSWORD: 'a-pw',
      NATS_COSTASSET_PASSWORD: 'c-pw',
    };
    expect(withServiceNatsUser(shared, 'costasset')).toEqual({ NATS_URL: 'nats://n:4222', NATS_USER: 'costasset', NATS_PASSWORD: 'c-pw' });
    expect(withServiceNatsUser({ NATS_URL: 'nats://n:4222' }, 'authz')).toEqual({ NATS_URL: 'nats://n:4222' });
  });
});
