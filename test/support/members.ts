import request from 'supertest';
import { Platform } from './platform';

/**
 * Puts users in a team (created when missing, holding `roles`) through the API, as a System Admin
 * would, and answers a token for each. A user in no team reads nothing (`403 TEAM_REQUIRED`), so
 * a test's "member" is always in a team; its visibility comes from the visibility groups naming it.
 */
export async function teamMembers(
  platform: Platform,
  team: { code: string; roles?: string[]; tid?: string },
  users: string[],
): Promise<Record<string, string>> {
  const tid = team.tid ?? 'default';
  const admin = await platform.token({ sub: 'admin', tid });
  const authz = (path: string, body: object) => request(platform.authz.url).post(path).set('corelite-token', admin).send(body);
  const created = await authz('/authorization/v2/teams', { team_code: team.code, org_code: 'members', roles: team.roles ?? [] });
  if (created.status !== 201 && created.body.code !== 'TEAM_CODE_TAKEN')
    throw new Error(`team ${team.code}: ${created.status} ${JSON.stringify(created.body)}`);
  const tokens: Record<string, string> = {};
  for (const user of users) {
    const made = await authz('/authorization/v2/users', { user_id: user });
    if (made.status !== 201 && made.status !== 409) throw new Error(`user ${user}: ${made.status} ${JSON.stringify(made.body)}`);
    const joined = await authz('/authorization/v2/userteam', { user_id: user, team_code: team.code });
    if (joined.status !== 200) throw new Error(`${user} in ${team.code}: ${joined.status} ${JSON.stringify(joined.body)}`);
    tokens[user] = await platform.token({ sub: user, tid });
  }
  return tokens;
}
