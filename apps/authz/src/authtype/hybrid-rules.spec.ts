import { ProblemException } from '@lib/core';
import { assertExternalRefChangeAllowed, ExternalRefChange } from './hybrid-rules';

function codeOf(change: ExternalRefChange): string | undefined {
  try {
    assertExternalRefChangeAllowed(change);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ProblemException);
    expect((error as ProblemException).getStatus()).toBe(403);
    return (error as ProblemException).code;
  }
}

describe('assertExternalRefChangeAllowed', () => {
  it('needs token groups, the new reference among them, and a group of a System Admin team, in that order', () => {
    expect(codeOf({ tokenGroups: [], newExternalRef: 'new', systemAdminTeamRefs: ['old'] })).toBe('TOKEN_GROUPS_MISSING');
    expect(codeOf({ tokenGroups: ['old'], newExternalRef: 'new', systemAdminTeamRefs: ['old'] })).toBe('EXTERNAL_REF_NOT_IN_TOKEN_GROUPS');
    expect(codeOf({ tokenGroups: ['new', 'other'], newExternalRef: 'new', systemAdminTeamRefs: ['old'] })).toBe(
      'NO_SYSTEM_ADMIN_TEAM_FOR_GROUPS',
    );
    expect(codeOf({ tokenGroups: ['new'], newExternalRef: 'new', systemAdminTeamRefs: [] })).toBe('NO_SYSTEM_ADMIN_TEAM_FOR_GROUPS');
    expect(codeOf({ tokenGroups: ['old', 'new'], newExternalRef: 'new', systemAdminTeamRefs: ['old'] })).toBeUndefined();
    // Keeping the current reference: the caller proves membership through it.
    expect(codeOf({ tokenGroups: ['old'], newExternalRef: 'old', systemAdminTeamRefs: ['old'] })).toBeUndefined();
  });
});
