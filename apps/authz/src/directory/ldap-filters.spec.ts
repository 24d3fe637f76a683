import { groupsFilter, userFilter } from './ldap-filters';

describe('LDAP filters', () => {
  it('escapes filter metacharacters of a user id', () => {
    expect(userFilter('*)(uid=*').toString()).toBe('(uid=\\2a\\29\\28uid=\\2a)');
    expect(userFilter('a\\b').toString()).toBe('(uid=a\\5cb)');
  });

  it('looks groups up by member DN and by memberUid, each value escaped', () => {
    const filter = groupsFilter(['uid=bob,ou=people,dc=corelite,dc=local'], 'bob)(cn=*');
    expect(filter.toString()).toBe('(|(member=uid=bob,ou=people,dc=corelite,dc=local)(memberUid=bob\\29\\28cn=\\2a))');
  });

  it('matches only literal values', () => {
    expect(userFilter('*').matches({ uid: 'alice' })).toBe(false);
    expect(userFilter('alice').matches({ uid: 'alice' })).toBe(true);
  });
});
