import { InvalidLdapHostError, ldapUrl } from './ldap-url';

describe('ldapUrl', () => {
  it.each([
    ['ldap.example.com', false, 'ldap://ldap.example.com:389'],
    ['ldap.example.com', true, 'ldaps://ldap.example.com:636'],
    ['127.0.0.1:13890', false, 'ldap://127.0.0.1:13890'],
    ['127.0.0.1:10636', true, 'ldaps://127.0.0.1:10636'],
    ['[::1]:3890', false, 'ldap://[::1]:3890'],
    ['ldap://127.0.0.1:13890', true, 'ldap://127.0.0.1:13890'],
    ['LDAPS://Directory.Example.com', false, 'ldaps://directory.example.com:636'],
    ['ldap://directory.example.com/', false, 'ldap://directory.example.com:389'],
    ['  ldap.example.com  ', false, 'ldap://ldap.example.com:389'],
  ])('%s (useSSL %s) → %s', (host, useSSL, expected) => {
    expect(ldapUrl(host, useSSL)).toBe(expected);
  });

  it.each([
    '',
    '   ',
    'http://ldap.example.com',
    'ldap://user:secret@ldap.example.com',
    'ldap.example.com/dc=x',
    'ldap://h/dc=x?cn',
    'host:99999',
    'bad host',
  ])('refuses %p', (host) => {
    expect(() => ldapUrl(host, false)).toThrow(InvalidLdapHostError);
  });

  it('never repeats credentials given in the host', () => {
    try {
      ldapUrl('ldap://user:s3cr3t@ldap.example.com', false);
      throw new Error('not refused');
    } catch (error) {
      expect((error as Error).message).not.toContain('s3cr3t');
    }
  });
});
