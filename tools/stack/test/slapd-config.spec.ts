import { createHash } from 'node:crypto';
import { hashSsha, renderSlapdConfig } from '../slapd-config';

describe('slapd.conf', () => {
  const config = renderSlapdConfig({
    schemaDir: '/etc/ldap/schema',
    moduleDir: '/usr/lib/ldap',
    suffix: 'dc=corelite,dc=local',
    rootDn: 'cn=admin,dc=corelite,dc=local',
    rootPasswordHash: '{SSHA}abc',
    databaseDir: '/data/ldap/db',
    pidFile: '/data/ldap.pid',
    argsFile: '/data/ldap/slapd.args',
  });
  const lines = config.split('\n');

  it('includes the four schemas in dependency order', () => {
    expect(lines.filter((l) => l.startsWith('include '))).toEqual([
      'include /etc/ldap/schema/core.schema',
      'include /etc/ldap/schema/cosine.schema',
      'include /etc/ldap/schema/nis.schema',
      'include /etc/ldap/schema/inetorgperson.schema',
    ]);
  });

  it('loads back_mdb and memberof, and puts the memberof overlay after its database', () => {
    expect(lines).toEqual(expect.arrayContaining(['modulepath /usr/lib/ldap', 'moduleload back_mdb', 'moduleload memberof']));
    expect(lines.indexOf('overlay memberof')).toBeGreaterThan(lines.indexOf('database mdb'));
  });

  it('declares the suffix, root DN, hashed root password, directory and pid file', () => {
    expect(lines).toEqual(
      expect.arrayContaining([
        'suffix "dc=corelite,dc=local"',
        'rootdn "cn=admin,dc=corelite,dc=local"',
        'rootpw {SSHA}abc',
        'directory /data/ldap/db',
        'pidfile /data/ldap.pid',
      ]),
    );
  });

  it('lets only the owner and binds see passwords', () => {
    expect(config).toMatch(/access to attrs=userPassword\n {2}by self write\n {2}by anonymous auth\n {2}by \* none/);
  });

  it('hashes the root password as slappasswd does ({SSHA}: sha1(password + salt) + salt)', () => {
    const salt = Buffer.from('01234567');
    const hash = hashSsha('admin-secret', salt);
    const raw = Buffer.from(hash.slice('{SSHA}'.length), 'base64');
    expect(hash.startsWith('{SSHA}')).toBe(true);
    expect(raw.subarray(20)).toEqual(salt);
    expect(raw.subarray(0, 20)).toEqual(createHash('sha1').update('admin-secret').update(salt).digest());
    expect(hashSsha('admin-secret')).not.toBe(hashSsha('admin-secret'));
    expect(hash).not.toContain('admin-secret');
  });
});
