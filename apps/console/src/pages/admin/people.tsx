import { useState } from 'preact/hooks';
import { authz, unwrap } from '../../api/client';
import type { Team, User } from '../../api/types';
import { type Column, DataTable } from '../../components/data-table';
import { TextField } from '../../components/forms';
import { Loaded } from '../../components/loaded';
import { Card, ErrorBox } from '../../components/states';
import { useAction, useApi } from '../../components/use-api';

const listOf = (text: string) => [
  ...new Set(
    text
      .split(/[\s,]+/)
      .map((entry) => entry.trim())
      .filter(Boolean),
  ),
];

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

const TEAM_COLUMNS: Column<Team>[] = [
  { key: 'team', header: 'Team', value: (team) => team.team_code },
  { key: 'org', header: 'Org', value: (team) => team.org_code },
  {
    key: 'roles',
    header: 'Roles',
    value: (team) => team.roles.join(', '),
    cell: (team) => team.roles.join(', ') || <span class="muted">none</span>,
  },
  { key: 'external', header: 'External group', value: (team) => team.external_ref_id },
];

const USER_COLUMNS: Column<User>[] = [
  { key: 'user', header: 'User', value: (user) => user.user_id },
  { key: 'idp', header: 'IdP', value: (user) => user.idp_id },
  { key: 'created', header: 'Created', value: (user) => user.created_at, format: 'date' },
  { key: 'seen', header: 'Last seen', value: (user) => user.last_seen_at, format: 'date' },
];

/** Teams, users and bulk membership (all-or-nothing on the API side). */
export function People() {
  const teams = useApi(
    () => allPages<Team>((cursor) => unwrap(authz.GET('/authorization/v2/teams', { params: { query: { limit: 200, cursor } } }))),
    [],
  );
  const users = useApi(
    () => allPages<User>((cursor) => unwrap(authz.GET('/authorization/v2/users', { params: { query: { limit: 200, cursor } } }))),
    [],
  );
  const [team, setTeam] = useState({ code: '', org: 'admin_org', roles: '' });
  const [user, setUser] = useState('');
  const [bulk, setBulk] = useState({ users: '', teams: '' });
  const [bulkResult, setBulkResult] = useState<string>();
  const createTeam = useAction(() =>
    unwrap(authz.POST('/authorization/v2/teams', { body: { team_code: team.code, org_code: team.org, roles: listOf(team.roles) } })),
  );
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
        <Loaded state={teams} empty={{ title: 'No teams yet' }}>
          {(list) => (
            <DataTable
              label="Teams"
              dense
              maxHeight="320px"
              rows={list}
              columns={TEAM_COLUMNS}
              rowKey={(entry) => entry.team_code}
              csv="teams"
            />
          )}
        </Loaded>
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
            <TextField
              id="team-roles"
              label="Roles"
              value={team.roles}
              onValue={(roles) => setTeam({ ...team, roles })}
              hint="comma-separated; System Admin makes members admins"
            />
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
        <Loaded state={users} empty={{ title: 'No users yet' }}>
          {(list) => (
            <DataTable
              label="Users"
              dense
              maxHeight="320px"
              rows={list}
              columns={USER_COLUMNS}
              rowKey={(entry) => `${entry.idp_id}\u0000${entry.user_id}`}
              csv="users"
            />
          )}
        </Loaded>
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
            <textarea
              id="bulk-users"
              rows={3}
              value={bulk.users}
              onInput={(event) => setBulk({ ...bulk, users: (event.target as HTMLTextAreaElement).value })}
              placeholder="alice, bob"
            />
          </div>
          <div class="field">
            <label for="bulk-teams">Teams</label>
            <textarea
              id="bulk-teams"
              rows={3}
              value={bulk.teams}
              onInput={(event) => setBulk({ ...bulk, teams: (event.target as HTMLTextAreaElement).value })}
              placeholder="FINOPS, AWS-TEAM"
            />
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
