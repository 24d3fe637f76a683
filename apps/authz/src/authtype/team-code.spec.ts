import { generateTeamCode, MAX_CODE_LENGTH, TEAM_CODE_PATTERN } from './team-code';

describe('generateTeamCode', () => {
  it('builds ADMIN-<slug of the name>-<random>, upper-case and valid as a team code', () => {
    expect(generateTeamCode('Cloud admins', () => 'a1b2c3')).toBe('ADMIN-CLOUD-ADMINS-A1B2C3');
    expect(generateTeamCode('  Équipe   née ', () => '0f0f0f')).toBe('ADMIN-EQUIPE-NEE-0F0F0F');
    expect(generateTeamCode('!!!', () => 'abcdef')).toBe('ADMIN-CONFIG-ABCDEF');
  });

  it('stays within the code length and pattern for long names, and differs between calls', () => {
    const code = generateTeamCode('x'.repeat(128) + ' --- ' + 'y'.repeat(50));
    expect(code.length).toBeLessThanOrEqual(MAX_CODE_LENGTH);
    expect(code).toMatch(TEAM_CODE_PATTERN);
    expect(generateTeamCode('Same')).not.toBe(generateTeamCode('Same'));
  });
});
