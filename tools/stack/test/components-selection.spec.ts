import * as fs from 'node:fs';
import { SEED_LDIF } from '../components/ldap';
import { selectComponents } from '../index';
import { missingPackages } from '../system-packages';

describe('component selection', () => {
  it('defaults to every component and keeps the canonical order', () => {
    expect(selectComponents(undefined)).toEqual(['nats', 'ldap', 's3', 'mongo', 'smtp', 'azurite']);
    expect(selectComponents(['mongo', 'nats'])).toEqual(['nats', 'mongo']);
    expect(selectComponents(['azurite', 's3'])).toEqual(['s3', 'azurite']);
  });

  it('rejects an unknown name', () => {
    expect(() => selectComponents(['redis'])).toThrow(/unknown component 'redis'/);
  });
});

describe('missing Debian packages', () => {
  it('lists each package once, only for programs not installed', () => {
    const required = [
      { program: 'nats-server', aptPackage: 'nats-server' },
      { program: 'ldapsearch', aptPackage: 'ldap-utils' },
      { program: 'ldapadd', aptPackage: 'ldap-utils' },
      { program: 'slapd', aptPackage: 'slapd' },
    ];
    expect(missingPackages(required, (p) => p === 'slapd')).toEqual(['nats-server', 'ldap-utils']);
    expect(missingPackages(required, () => true)).toEqual([]);
  });
});

describe('demo directory seed', () => {
  const entries = fs
    .readFileSync(SEED_LDIF, 'utf8')
    .split(/\n\s*\n/)
    .map((block) => block.split('\n').filter((line) => line && !line.startsWith('#')))
    .filter((lines) => lines.length > 0);
  const entry = (dn: string) => entries.find((lines) => lines[0] === `dn: ${dn}`) ?? [];

  it('has the users admin, alice, bob and carol with the inetOrgPerson attributes', () => {
    for (const uid of ['admin', 'alice', 'bob', 'carol']) {
      const lines = entry(`uid=${uid},ou=people,dc=corelite,dc=local`);
      expect(lines).toContain('objectClass: inetOrgPerson');
      for (const attribute of ['uid', 'cn', 'sn', 'mail', 'userPassword']) {
        expect(lines.some((line) => line.startsWith(`${attribute}: `))).toBe(true);
      }
    }
  });

  it('has the groups with their members', () => {
    const people = (uid: string) => `member: uid=${uid},ou=people,dc=corelite,dc=local`;
    expect(entry('cn=cloud-admins,ou=groups,dc=corelite,dc=local')).toEqual(
      expect.arrayContaining(['objectClass: groupOfNames', people('alice'), people('admin')]),
    );
    expect(entry('cn=finops,ou=groups,dc=corelite,dc=local')).toEqual(
      expect.arrayContaining(['objectClass: groupOfNames', people('alice'), people('bob')]),
    );
    expect(entry('cn=developers,ou=groups,dc=corelite,dc=local')).toEqual(
      expect.arrayContaining(['objectClass: posixGroup', 'memberUid: bob', 'memberUid: carol', 'gidNumber: 5000']),
    );
  });
});
