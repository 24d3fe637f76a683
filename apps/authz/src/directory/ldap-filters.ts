import { EqualityFilter, Filter, OrFilter } from 'ldapts';

/**
 * Search filters as ldapts filter objects: values are encoded as BER octet strings (and escaped
 * in `toString()`), never spliced into filter text, so a user id such as `*)(uid=*` matches
 * only an entry whose uid is literally that string.
 */
export function userFilter(userId: string): Filter {
  return new EqualityFilter({ attribute: 'uid', value: userId });
}

/** Groups listing the user by DN (`member`, groupOfNames) or by user id (`memberUid`, posixGroup). */
export function groupsFilter(userDns: string[], userId: string): Filter {
  return new OrFilter({
    filters: [
      ...userDns.map((dn) => new EqualityFilter({ attribute: 'member', value: dn })),
      new EqualityFilter({ attribute: 'memberUid', value: userId }),
    ],
  });
}
