import { useState } from 'preact/hooks';
import { authz, unwrap } from '../../api/client';
import type { Team, User } from '../../api/types';
import { dateTime } from '../../components/format';
import { TextField } from '../../components/forms';
import { Card, ErrorBox, Loading } from '../../components/states';
import { useAction, useApi } from '../../components/use-api';

const listOf = (text: string) => [...new Set(text.split(/[\s,]+/).map((entry) => entry.trim()).filter(Boolean))];

async function allPages<T>(load: (cursor?: string) => Promise<{ items: T[]; nextCursor?: string | null }>): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await load(cursor);
    items.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor && items.length < 5000);
  return items;
}

/** Teams, users and bulk membership (all-or-nothing on the API side). */
export function People() {
  const teams = useApi(() => allPages<Team>((cursor) => unwrap(authz.GET('/authorization/v2/teams', { params: { query: { limit: 200, cursor } } }))), []);
  const users = useApi(() => allPages<User>((cursor) => unwrap(authz.GET('/authorization/v2/users', { params: { query: { limit: 200, cursor } } }))), []);
  const [team, setTeam] = useState({ code: '', org: 'admin_org', roles: '' });
  const [user, setUser] = useState('');
  const [bulk, setBulk] = useState({ users: '', teams: '' });
  const [bulkResult, setBulkResult] = useState<string>();
  const createTeam = useAction(() => unwrap(authz.POST('/authorization/v2/teams', { body: { team_code: team.code, org_code: team.org, roles: listOf(team.roles) } })));
  const createUser = useAction(() => unwrap(authz.POST('/authorization/v2/users', { body: { user_id: user } })));
  const membership = useAction(async (add: boolean) => {
    const body = { user_id_list: listOf(bulk.users), team_code_list: listOf(bulk.teams) };
    if (add) {
      const answer = await unwrap(authz.POST('/authorization/v2/users/teams', { body }));
      setBulkResult(`${answer.added.length} memberships added, ${answer.unchanged_count} already there.`);
    } else {
      const answer = await unwrap(authz.POST('/authorization/v2/users/teams/remove', { body }));
      setBulkResult(`Memberships removed: ${JSON.stringify(answer)}`);
    }
  });
  return (
    <div class="grid two">
      <Card title="Teams">
        {teams.error ? (
          <ErrorBox error={teams.error} onRetry={teams.reload} />
        ) : !teams.data ? (
          <Loading />
        ) : (
          <div class="table-scroll" style={{ maxHeight: '320px' }}>
            <table class="table dense">
              <thead>
                <tr>
                  <th scope="col">Team</th>
                  <th scope="col">Org</th>
                  <th scope="col">Roles</th>
                  <th scope="col">External group</th>
                </tr>
              </thead>
              <tbody>
                {teams.data.map((entry) => (
                  <tr key={entry.team_code}>
                    <td>{entry.team_code}</td>
                    <td>{entry.org_code}</td>
                    <td>{entry.roles.join(', ') || <span class="muted">none</span>}</td>
                    <td>{entry.external_ref_id ?? <span class="muted">—</span>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <form
          style={{ marginTop: '12px' }}
          onSubmit={async (event) => {
            event.preventDefault();
            if (await createTeam.run()) teams.reload();
          }}
        >
          <div class="form-grid">
            <TextField id="team-code" label="Team code" value={team.code} onValue={(code) => setTeam({ ...team, code })} required />
            <TextField id="team-org" label="Org" value={team.org} onValue={(org) => setTeam({ ...team, org })} required />
            <TextField id="team-roles" label="Roles" value={team.roles} onValue={(roles) => setTeam({ ...team, roles })} hint="comma-separated; System Admin makes members admins" />
          </div>
          {createTeam.error && <ErrorBox error={createTeam.error} />}
          <div class="form-actions">
            <button class="button primary" type="submit" disabled={createTeam.busy}>
              Create team
            </button>
          </div>
        </form>
      </Card>
      <Card title="Users">
        {users.error ? (
          <ErrorBox error={users.error} onRetry={users.reload} />
        ) : !users.data ? (
          <Loading />
        ) : (
          <div class="table-scroll" style={{ maxHeight: '320px' }}>
            <table class="table dense">
              <thead>
                <tr>
                  <th scope="col">User</th>
                  <th scope="col">IdP</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last seen</th>
                </tr>
              </thead>
              <tbody>
                {users.data.map((entry) => (
                  <tr key={`${entry.idp_id}\u0000${entry.user_id}`}>
                    <td>{entry.user_id}</td>
                    <td>{entry.idp_id}</td>
                    <td>{dateTime(entry.created_at)}</td>
                    <td>{dateTime(entry.last_seen_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <form
          style={{ marginTop: '12px' }}
          onSubmit={async (event) => {
            event.preventDefault();
            if (await createUser.run()) users.reload();
          }}
        >
          <div class="form-grid">
            <TextField id="user-id" label="User id" value={user} onValue={setUser} required hint="as the sub of the user's tokens" />
          </div>
          {createUser.error && <ErrorBox error={createUser.error} />}
          <div class="form-actions">
            <button class="button primary" type="submit" disabled={createUser.busy}>
              Create user
            </button>
          </div>
        </form>
      </Card>
      <Card title="Bulk membership" class="span-2">
        <p class="muted">Every user joins (or leaves) every team listed, all or nothing: an unknown user or team changes nothing.</p>
        <div class="form-grid">
          <div class="field">
            <label for="bulk-users">Users</label>
            <textarea id="bulk-users" rows={3} value={bulk.users} onInput={(event) => setBulk({ ...bulk, users: (event.target as HTMLTextAreaElement).value })} placeholder="alice, bob" />
          </div>
          <div class="field">
            <label for="bulk-teams">Teams</label>
            <textarea id="bulk-teams" rows={3} value={bulk.teams} onInput={(event) => setBulk({ ...bulk, teams: (event.target as HTMLTextAreaElement).value })} placeholder="FINOPS, AWS-TEAM" />
          </div>
        </div>
        {membership.error && <ErrorBox error={membership.error} />}
        {bulkResult && <p class="success">{bulkResult}</p>}
        <div class="form-actions">
          <button type="button" class="button primary" disabled={membership.busy} onClick={() => membership.run(true)}>
            Add memberships
          </button>
          <button type="button" class="button danger" disabled={membership.busy} onClick={() => membership.run(false)}>
            Remove memberships
          </button>
        </div>
      </Card>
    </div>
  );
}
