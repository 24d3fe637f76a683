import request from 'supertest';
import { RouteAccess, RouteCatalog } from '@lib/auth';
import { eventually, Platform, servedDirectly, startPlatform } from '../support/platform';
import { seedLineItems } from '../support/line-item-seed';

/**
 * The authorization matrix: every route of both services, as the running apps list them with
 * their declared access rule, called by each kind of caller (docs/decisions.md, "Who may do
 * what"). A route that declares no rule stops the service (so it cannot reach this test); every
 * route must have a line below, so a new route cannot go untested. Expectations come from the
 * rule: no token or an expired token → 401; a caller without what the rule asks for → 403 with
 * the rule's code (`TEAM_REQUIRED`, `COST_DATA_MANAGER_REQUIRED`, `SYSTEM_ADMIN_REQUIRED`); the
 * tenant's System Admin and the callers the rule admits → the route's own answer (a line says
 * where a caller's visibility or ownership changes it); and a System Admin of another tenant →
 * exactly what it gets for a record that does not exist (so nothing tells it the record is
 * there) and never data of this tenant.
 */

/** A user in no team; a reader in a team with a visibility group; a Cost Data Manager with the same visibility. */
type TenantCaller = 'memberNoTeam' | 'memberWithTeam' | 'costDataManager';
type Caller = 'admin' | TenantCaller | 'otherTenantAdmin' | 'noToken' | 'expired';

interface Call {
  path?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
}

interface RouteCase {
  /** The request for a record of the tenant (default: no parameters, no body). */
  call?: Call;
  /** The same request naming a record that does not exist (routes that reference a record). */
  absent?: Call;
  /** The tenant's System Admin (default: any 2xx). */
  admin?: number;
  /** Callers the route's rule admits, other than the admin (default: as the admin); one status for all, or one each. */
  member?: number | Partial<Record<TenantCaller, number>>;
  /** Runs after the other routes (it removes what they use). */
  last?: boolean;
}

/** Marks every record of tenant A; another tenant's answers must never contain it. */
const MARK = 'mxa';
const NO_SUCH_ID = '5f0000000000000000000000';
const NO_SUCH_UUID = '00000000-0000-4000-8000-000000000000';

describe('authorization matrix over every route', () => {
  let platform: Platform;
  const tokens = {} as Record<Exclude<Caller, 'noToken'>, string>;
  const ids: Record<string, string> = {};
  const cases: Record<string, RouteCase> = {};

  const base = (service: 'authz' | 'costasset') => (service === 'authz' ? platform.authz.url : platform.costasset.url);
  const send = (service: 'authz' | 'costasset', method: string, path: string, call: Call, token?: string) => {
    // health and metrics are each service's own paths, not routed by the gateway
    const agent = request(
      servedDirectly(path) ? (service === 'authz' ? platform.authz.directUrl : platform.costasset.directUrl) : base(service),
    );
    const verb = method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    const filled = path.replace(/:(\w+)/g, (_match, name: string) => encodeURIComponent(call.path?.[name] ?? `unset-${name}`));
    let req = agent[verb](filled).query(call.query ?? {});
    if (token) req = req.set('corelite-token', token);
    return call.body === undefined ? req : req.send(call.body as object);
  };
  const admin = (service: 'authz' | 'costasset', method: string, path: string, body?: unknown, query?: Record<string, string>) =>
    send(service, method, path, { body, query }, tokens.admin).then((res) => {
      if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
      return res;
    });

  beforeAll(async () => {
    platform = await startPlatform({ BOOTSTRAP_TENANTS: 'default,other' });
    tokens.admin = await platform.token({ sub: 'admin' });
    tokens.memberNoTeam = await platform.token({ sub: `${MARK}-loner` });
    tokens.memberWithTeam = await platform.token({ sub: `${MARK}-member` });
    tokens.costDataManager = await platform.token({ sub: `${MARK}-cdm` });
    tokens.otherTenantAdmin = await platform.token({ sub: 'admin', tid: 'other' });
    tokens.expired = await platform.token({ sub: 'admin' }, -120);

    // tenant A: a team holding a visibility group, its member, and one record of each kind
    await admin('authz', 'POST', '/authorization/v2/teams', { team_code: 'MXA-TEAM', org_code: `${MARK}-org`, roles: [] });
    await admin('authz', 'POST', '/authorization/v2/users', { user_id: `${MARK}-member` });
    await admin('authz', 'POST', '/authorization/v2/users', { user_id: `${MARK}-other-user` });
    await admin('authz', 'POST', '/authorization/v2/userteam', { user_id: `${MARK}-member`, team_code: 'MXA-TEAM' });
    await admin('authz', 'POST', '/authorization/v2/teams', {
      team_code: 'MXA-CDM',
      org_code: `${MARK}-org`,
      roles: ['Cost Data Manager'],
    });
    await admin('authz', 'POST', '/authorization/v2/users', { user_id: `${MARK}-cdm` });
    await admin('authz', 'POST', '/authorization/v2/userteam', { user_id: `${MARK}-cdm`, team_code: 'MXA-CDM' });
    ids.authType = (
      await admin('authz', 'POST', '/core/authorization/v1/authtype/configurations', { name: `${MARK}-internal`, auth_type: 'internal' })
    ).body.id;
    await admin('authz', 'POST', '/core/authorization/v1/configuration/idp', { auth_type_id: ids.authType });
    await admin('authz', 'PUT', '/core/configuration/v1/configvalues', {
      configurationkey: 'MXA_KEY',
      configurationvalue: `${MARK}-value`,
    });
    await admin('authz', 'POST', '/core/featureflagmanagement/v1/featureflag', { flag_key: 'MXA_FLAG', flag_value: 'true' });

    const groups = '/api/costasset/v1/dynamicResourceGroups';
    await admin('costasset', 'POST', groups, {
      _id: `${MARK}-vis`,
      type: 'visibility',
      expr: 'providerName == "aws"',
      context: { teams: ['MXA-TEAM', 'MXA-CDM'] },
    });
    await admin('costasset', 'POST', groups, {
      _id: `${MARK}-budgetary`,
      type: 'budgetary',
      expr: 'providerName == "aws"',
      context: { teams: ['MXA-TEAM', 'MXA-CDM'] },
    });
    await admin('costasset', 'POST', groups, { _id: `${MARK}-doomed`, type: 'visibility', expr: 'providerName == "x"', context: {} });
    const budget = (name: string) => ({
      name,
      amount: 100,
      currency: 'USD',
      scope: { groupId: `${MARK}-budgetary` },
      startPeriod: '202410',
      endPeriod: '202410',
      thresholds: [50],
    });
    ids.budget = (await admin('costasset', 'POST', '/api/costasset/v1/budgetController/budgets', budget(`${MARK}-budget`))).body.id;
    ids.doomedBudget = (await admin('costasset', 'POST', '/api/costasset/v1/budgetController/budgets', budget(`${MARK}-doomed`))).body.id;
    const model = { append: false, type: 'v1', vtags: [], expr: 'period == ${period}' };
    await admin('costasset', 'POST', `/api/costasset/v1/reportModels/${MARK}-model`, model, {
      templateId: 'cost-by-provider',
      saveOutput: 'true',
    });
    await admin('costasset', 'POST', `/api/costasset/v1/reportModels/${MARK}-doomed`, model, { templateId: 'cost-by-provider' });
    await admin('costasset', 'POST', '/api/costasset/v1/providers/object-storage', {
      providerName: `${MARK} store`,
      providerCode: `${MARK}-osp`,
    });
    await admin('costasset', 'POST', '/api/costasset/v1/allocation/dimensions', { name: 'matrix-dim', rules: [] });
    await admin('costasset', 'POST', '/api/costasset/v1/allocation/dimensions', { name: 'matrix-doomed', rules: [] });
    const mailChannel = { name: `${MARK} mail`, type: 'email', recipients: ['mxa@example.com'] };
    ids.channel = (await admin('costasset', 'POST', '/api/costasset/v1/notificationChannels', mailChannel)).body.id;
    ids.doomedChannel = (await admin('costasset', 'POST', '/api/costasset/v1/notificationChannels', mailChannel)).body.id;
    const subscription = { name: `${MARK} subscription`, channelIds: [ids.channel], topic: 'anomalies' };
    ids.subscription = (await admin('costasset', 'POST', '/api/costasset/v1/notificationSubscriptions', subscription)).body.id;
    ids.doomedSubscription = (await admin('costasset', 'POST', '/api/costasset/v1/notificationSubscriptions', subscription)).body.id;
    await admin(
      'costasset',
      'POST',
      '/api/costasset/v1/providermetadata/service_categories',
      [{ providerName: 'aws', assetType: 'vm', serviceCategory: 'Compute' }],
      { providerName: 'aws' },
    );
    await admin('costasset', 'POST', '/api/costasset/v1/providermetadata/locations', [
      { providerName: 'aws', providerRegionCode: 'eu-west-1', country: 'IE' },
    ]);
    ids.upload = (
      await admin('costasset', 'POST', '/api/costasset/v1/gpd', undefined, { providername: `${MARK}-aws` })
    ).body.GPDUploadRefId;
    ids.doomedUpload = (
      await admin('costasset', 'POST', '/api/costasset/v1/gpd', undefined, { providername: `${MARK}-aws` })
    ).body.GPDUploadRefId;
    ids.focusUpload = (
      await admin('costasset', 'POST', '/api/costasset/v1/focus/uploads', { files: [{ name: `${MARK}-focus.csv` }] })
    ).body.uploadId;
    const deletion = await admin('costasset', 'POST', '/api/costasset/v1/dataManagement', { filters: { providerName: `${MARK}-nothing` } });
    ids.deletion = deletion.body.id;
    ids.deletionJob = deletion.body.jobId;
    await eventually(async () =>
      expect((await admin('costasset', 'GET', `/api/costasset/v1/jobs/${ids.deletionJob}`)).body.status).toBe('succeeded'),
    );
    await seedLineItems(platform, 'default', [
      { providerName: 'aws', billingAccountId: `${MARK}-acct`, category: 'Compute', region: 'eu-west-1', period: '202410', cost: 10 },
      { providerName: 'azure', billingAccountId: `${MARK}-acct2`, category: 'Compute', region: 'westeurope', period: '202410', cost: 20 },
    ]);

    const absentPath = (path: Record<string, string>) => ({
      path: Object.fromEntries(Object.keys(path).map((key) => [key, `${MARK}-absent`])),
    });
    const byPath = (
      path: Record<string, string>,
      rest: Omit<RouteCase, 'call' | 'absent'> & {
        body?: unknown;
        query?: Record<string, string>;
        absentPath?: Record<string, string>;
      } = {},
    ) => ({
      call: { path, body: rest.body, query: rest.query },
      absent: { ...absentPath(path), ...(rest.absentPath ? { path: rest.absentPath } : {}), body: rest.body, query: rest.query },
      admin: rest.admin,
      member: rest.member,
    });
    const reportModel = { append: false, type: 'v1', scope: 'public', vtags: [], expr: 'period == ${period}' };
    const connectionBody = {
      name: `${MARK} bucket`,
      type: 's3',
      layout: 'focus-files',
      source: { endpoint: 'http://127.0.0.1:1', region: 'us-east-1', bucket: 'matrix-bucket' },
      credentials: { accessKeyId: 'matrix', secretAccessKey: 'matrix-secret' },
    };
    Object.assign(cases, {
      // ---- authz
      'POST /core/featureflagmanagement/v1/featureflag': { call: { body: { flag_key: 'MXA_FLAG', flag_value: 'false' } } },
      'PUT /core/featureflagmanagement/v1/featureflag/:configurationKey': byPath(
        { configurationKey: 'MXA_FLAG' },
        { body: { flag_value: 'true' }, absentPath: { configurationKey: 'MXA_ABSENT' } },
      ),
      'GET /core/configuration/v1/configvalues/:key': byPath({ key: 'MXA_KEY' }, { absentPath: { key: 'MXA_ABSENT' } }),
      'PUT /core/configuration/v1/configvalues': { call: { body: { configurationkey: 'MXA_KEY', configurationvalue: `${MARK}-value` } } },
      'POST /core/authorization/v1/token/refresh': { call: { body: { refresh_token: 'not-a-jwt' } }, admin: 400 },
      // RFC 7009: a token that revokes nothing is answered 200 all the same
      'POST /core/authorization/v1/token/revoke': { call: { body: { token: 'not-a-jwt' } } },
      'POST /authorization/v2/teams': { call: { body: { team_code: 'MXA-TEAM', org_code: `${MARK}-org`, roles: [] } }, admin: 409 },
      'GET /authorization/v2/teams/:team_code': byPath({ team_code: 'MXA-TEAM' }),
      'POST /authorization/v2/users': { call: { body: { user_id: `${MARK}-member` } }, admin: 409 },
      // a user whose token no caller here uses
      'POST /authorization/v2/users/:user_id/disable': byPath({ user_id: `${MARK}-other-user` }),
      'POST /authorization/v2/users/:user_id/enable': byPath({ user_id: `${MARK}-other-user` }),
      'POST /authorization/v2/userteam': {
        call: { body: { user_id: `${MARK}-other-user`, team_code: 'MXA-TEAM' } },
        absent: { body: { user_id: `${MARK}-absent`, team_code: 'MXA-ABSENT' } },
      },
      'POST /authorization/v2/userteam/remove': {
        call: { body: { user_id: `${MARK}-other-user`, team_code: 'MXA-TEAM' } },
        absent: { body: { user_id: `${MARK}-absent`, team_code: 'MXA-ABSENT' } },
      },
      'POST /authorization/v2/users/teams': {
        call: { body: { user_id_list: [`${MARK}-other-user`], team_code_list: ['MXA-TEAM'] } },
        absent: { body: { user_id_list: [`${MARK}-absent`], team_code_list: ['MXA-ABSENT'] } },
      },
      'POST /authorization/v2/users/teams/remove': {
        call: { body: { user_id_list: [`${MARK}-other-user`], team_code_list: ['MXA-TEAM'] } },
        absent: { body: { user_id_list: [`${MARK}-absent`], team_code_list: ['MXA-ABSENT'] } },
      },
      // anyone signed in reads its own teams, not another user's
      'GET /authorization/v2/userteam/:userid': byPath(
        { userid: `${MARK}-member` },
        { member: { memberNoTeam: 403, memberWithTeam: 200, costDataManager: 403 } },
      ),
      'POST /core/authorization/v1/configuration/idp': {
        call: { body: { auth_type_id: ids.authType } },
        absent: { body: { auth_type_id: NO_SUCH_ID } },
        admin: 409,
      },
      // the IdP in the path must be the caller's own, so another tenant can only ever name its own mapping
      'PATCH /core/authorization/v1/configuration/idp/:idp_id': {
        call: { path: { idp_id: 'idp-default' }, body: { auth_type_id: ids.authType } },
      },
      // the last mapping of a tenant cannot be deleted
      'DELETE /core/authorization/v1/configuration/idp/:idp_id': { call: { path: { idp_id: 'idp-default' } }, admin: 409 },
      'POST /core/authorization/v1/authtype/configurations': {
        call: { body: { name: `${MARK}-internal`, auth_type: 'internal' } },
        admin: 409,
      },
      'GET /core/authorization/v1/authtype/configurations/:id': byPath({ id: ids.authType }, { absentPath: { id: NO_SUCH_ID } }),
      'PATCH /core/authorization/v1/configuration/authtype/:id': byPath(
        { id: ids.authType },
        { body: { name: `${MARK}-internal` }, absentPath: { id: NO_SUCH_ID } },
      ),
      // removes the configuration and its mapping: after the routes that use them
      'DELETE /core/authorization/v1/authtype/configurations/:auth_type_id': {
        ...byPath({ auth_type_id: ids.authType }, { admin: 204, absentPath: { auth_type_id: NO_SUCH_ID } }),
        last: true,
      },

      // ---- costasset
      'POST /api/costasset/v1/featureflag': { call: { body: { configurationkey: 'MXA_FLAG', configurationvalue: 'true' } } },
      'PUT /api/costasset/v1/featureflag': { call: { body: { configurationkey: 'MXA_FLAG', configurationvalue: 'true' } } },
      'POST /insights/v2/housekeeping/configuration': { call: { body: { MXA_FLAG: 'true' } } },
      'POST /api/costasset/extensions/ObjectStoreExtensionRepo': { call: { query: { ProviderCode: `${MARK}-osp`, Filename: 'ext.zip' } } },
      'POST /api/costasset/extensions/ObjectStoreExtensionRepo/validate': {
        call: { query: { ProviderCode: `${MARK}-osp`, Filename: 'ext.zip' } },
        admin: 404,
      },
      'POST /api/costasset/extensions/ObjectStoreInputHandler': { call: { query: { ProviderCode: `${MARK}-osp`, Filename: 'raw.zip' } } },
      'POST /api/costasset/extensions/notify/ObjectStoreInputHandler': {
        call: { query: { ProviderCode: `${MARK}-osp`, Filename: 'raw.zip' } },
        admin: 404,
      },
      'POST /api/costasset/extensions/flow': {
        call: { body: { vars: { providerCode: `${MARK}-osp` } } },
        absent: { body: { vars: { providerCode: `${MARK}-absent` } } },
        admin: 404,
      },
      'POST /api/costasset/extensions/data/delete': { call: { body: { items: [{ key: `extensions/${MARK}-osp/ext.zip` }] } } },
      'GET /api/costasset/extensions/data/download': { call: { query: { key: `extensions/${MARK}-osp/ext.zip` } }, admin: 404 },
      // a job is seen by the one who asked for it and by System Admins: another user's is not found
      'GET /api/costasset/v1/jobs/:jobId': byPath({ jobId: ids.deletionJob }, { member: 404, absentPath: { jobId: NO_SUCH_UUID } }),
      'POST /api/costasset/v1/jobs/:jobId/terminate': byPath(
        { jobId: ids.deletionJob },
        { admin: 400, member: 404, absentPath: { jobId: NO_SUCH_UUID } },
      ),
      // a Cost Data Manager whose visibility is limited names the accounts it deletes
      'POST /api/costasset/v1/dataManagement': { call: { body: { filters: { providerName: `${MARK}-nothing` } } }, member: 400 },
      // a Cost Data Manager cancels its own requests only
      'POST /api/costasset/v1/dataManagement/:id': byPath(
        { id: ids.deletion },
        { admin: 409, member: 404, absentPath: { id: NO_SUCH_ID } },
      ),
      'POST /api/costasset/v1/providers/object-storage': {
        call: { body: { providerName: `${MARK} store`, providerCode: `${MARK}-osp` } },
        admin: 409,
      },
      'GET /api/costasset/v1/providers/object-storage/:providerCode': byPath({ providerCode: `${MARK}-osp` }),
      'POST /api/costasset/v1/remediate': { call: { body: { tasks: ['currency'] } } },
      // the interface answers 401 for a provider without mappings (code PROVIDER_METADATA_NOT_FOUND)
      'GET /api/costasset/v1/providermetadata/service_categories': {
        call: { query: { providerName: 'aws' } },
        absent: { query: { providerName: `${MARK}-absent` } },
      },
      'GET /api/costasset/v1/providermetadata/locations': {
        call: { query: { providerName: 'aws' } },
        absent: { query: { providerName: `${MARK}-absent` } },
      },
      'POST /api/costasset/v1/providermetadata/service_categories': {
        call: { query: { providerName: 'aws' }, body: [{ providerName: 'aws', assetType: 'vm', serviceCategory: 'Compute' }] },
      },
      'PATCH /api/costasset/v1/providermetadata/service_categories': {
        call: { query: { providerName: 'aws' }, body: { assetType: 'vm', serviceCategory: 'Compute' } },
      },
      'POST /api/costasset/v1/providermetadata/locations': {
        call: { body: [{ providerName: 'aws', providerRegionCode: 'eu-west-1', country: 'IE' }] },
      },
      'PATCH /api/costasset/v1/providermetadata/locations': {
        call: { query: { providerName: 'aws', providerRegionCode: 'eu-west-1' }, body: { country: 'IE' } },
      },
      'GET /api/costasset/v1/reportModels/:reportModelID': byPath({ reportModelID: `${MARK}-model` }),
      'GET /api/costasset/v1/reportModels/:reportModelID/execution': byPath(
        { reportModelID: `${MARK}-model` },
        { query: { templateParams: '{"period":"202410"}' } },
      ),
      'GET /api/costasset/v1/reportModels/:reportModelID/outputs': byPath({ reportModelID: `${MARK}-model` }),
      // any member creates models; a model is changed or removed by its creator or a System Admin
      'POST /api/costasset/v1/reportModels/:reportModelID': {
        call: { path: { reportModelID: `${MARK}-model` }, body: reportModel, query: { templateId: 'cost-trend' } },
        admin: 409,
      },
      'PUT /api/costasset/v1/reportModels/:reportModelID': byPath({ reportModelID: `${MARK}-model` }, { body: reportModel, member: 403 }),
      'PATCH /api/costasset/v1/reportModels/:reportModelID': byPath(
        { reportModelID: `${MARK}-model` },
        { body: { append: false }, member: 403 },
      ),
      'DELETE /api/costasset/v1/reportModels/:reportModelID': byPath({ reportModelID: `${MARK}-doomed` }, { member: 403 }),
      // a member sees the budgets of the budgetary groups naming its teams
      'GET /api/costasset/v1/budgetController/budgetaryUnits': {},
      'GET /api/costasset/v1/budgetController/budgets/:id': byPath({ id: ids.budget }, { absentPath: { id: NO_SUCH_ID } }),
      'POST /api/costasset/v1/budgetController/budgets': { call: { body: budget(`${MARK}-budget`) }, admin: 409 },
      'PUT /api/costasset/v1/budgetController/budgets/:id': byPath(
        { id: ids.budget },
        { body: budget(`${MARK}-budget`), absentPath: { id: NO_SUCH_ID } },
      ),
      'DELETE /api/costasset/v1/budgetController/budgets/:id': byPath({ id: ids.doomedBudget }, { absentPath: { id: NO_SUCH_ID } }),
      'GET /api/costasset/v1/gpd': { call: { query: { providername: `${MARK}-aws` } } },
      'POST /api/costasset/v1/gpd': { call: { query: { providername: `${MARK}-aws` } } },
      // the admin's upload holds no rows yet: only the admin sees it
      'POST /api/costasset/v1/gpd/enrich': {
        call: { body: { GPDUploadRefId: [ids.upload], provider: [], retry: 'false' } },
        absent: { body: { GPDUploadRefId: [NO_SUCH_UUID], provider: [], retry: 'false' } },
        admin: 400,
        member: 404,
      },
      'POST /api/costasset/v1/gpd/retry': {
        call: { body: { jobId: ids.deletionJob } },
        absent: { body: { jobId: NO_SUCH_UUID } },
        admin: 400,
      },
      'POST /api/costasset/v1/gpd/cleanup': {
        call: { query: { providername: `${MARK}-aws` }, body: { GPDUploadRefId: ids.doomedUpload } },
        absent: { query: { providername: `${MARK}-aws` }, body: { GPDUploadRefId: NO_SUCH_UUID } },
        member: 404,
      },
      'POST /api/costasset/v1/focus/uploads': {
        call: { body: { files: [{ name: `${MARK}-part-1.csv.gz` }, { name: `${MARK}-part-2.parquet` }] } },
      },
      // the admin's upload holds no rows yet: only the admin sees it
      'GET /api/costasset/v1/focus/uploads/:uploadId': {
        call: { path: { uploadId: ids.focusUpload } },
        absent: { path: { uploadId: NO_SUCH_UUID } },
        member: 404,
      },
      // no file was PUT: the admin is told which files are missing
      'POST /api/costasset/v1/focus/uploads/:uploadId/import': {
        call: { path: { uploadId: ids.focusUpload }, body: {} },
        absent: { path: { uploadId: NO_SUCH_UUID }, body: {} },
        admin: 400,
        member: 404,
      },
      'DELETE /api/costasset/v1/focus/uploads/:uploadId': {
        call: { path: { uploadId: ids.focusUpload } },
        absent: { path: { uploadId: NO_SUCH_UUID } },
        member: 404,
      },
      'POST /api/costasset/v1/enrichmentController/ingestion': { call: { body: {} } },
      'POST /api/costasset/v1/enrichmentController/ingestion/retry': { call: { body: {} } },
      'POST /api/costasset/v1/enrichmentController/jobs/terminate': {
        call: { body: { jobId: ids.deletionJob } },
        absent: { body: { jobId: NO_SUCH_UUID } },
        admin: 404,
      },
      'POST /api/costasset/v2/enrichmentController/ingestion': {
        call: { body: { vars: { providerCode: `${MARK}-osp` } } },
        absent: { body: { vars: { providerCode: `${MARK}-absent` } } },
        admin: 404,
      },
      'POST /api/costasset/v1/dynamicResourceGroups': {
        call: { body: { _id: `${MARK}-vis`, type: 'visibility', expr: 'providerName == "aws"' } },
        admin: 409,
      },
      'PUT /api/costasset/v1/dynamicResourceGroups': {
        call: { body: { _id: `${MARK}-vis`, type: 'visibility', expr: 'providerName == "aws"', context: { teams: ['MXA-TEAM'] } } },
        absent: { body: { _id: `${MARK}-absent`, type: 'visibility', expr: 'providerName == "aws"', context: { teams: ['MXA-TEAM'] } } },
      },
      'PATCH /api/costasset/v1/dynamicResourceGroups': {
        call: { body: { _id: `${MARK}-vis`, expr: 'providerName == "aws"' } },
        absent: { body: { _id: `${MARK}-absent`, expr: 'providerName == "aws"' } },
      },
      'DELETE /api/costasset/v1/dynamicResourceGroups/:id': byPath({ id: `${MARK}-doomed` }),
      'POST /api/costasset/v1/migrationController/accounts': {
        call: { body: { apiToken: 't', userName: 'u', legacyURL: 'http://127.0.0.1:1' } },
        admin: 400,
      },
      'GET /api/costasset/v1/migrationController/accounts/status': { admin: 204 },

      // ---- routes that name no record and take no body: each caller as its rule says
      'GET /health/live': {},
      'GET /health/ready': {},
      'GET /metrics': {},
      'GET /core/authorization/v1/.well-known/jwks.json': {},
      'GET /core/authorization/v1/me': {},
      'GET /core/authorization/v1/audit': {},
      'GET /core/authorization/v1/authtype/configurations': {},
      'GET /authorization/v2/teams': {},
      'GET /authorization/v2/users': {},
      'GET /core/configuration/v1/configvalues': {},
      'GET /core/featureflagmanagement/v1/featureflag': {},
      'GET /api/costasset/v1/currency/instanceCurrencies': {},
      'GET /api/costasset/v1/currency/defaultCurrency': {},
      'GET /api/costasset/v1/featureflag': {},
      'GET /api/costasset/extensions/test': {},
      // lists leave out what the caller may not see (its answer is checked in tenant-roles)
      'GET /api/costasset/extensions/data/list': {},
      'GET /api/costasset/v1/costLineItems': {},
      'GET /api/costasset/v1/costLineItems/totals': {},
      'GET /api/costasset/v1/costLineItems/export': {},
      'GET /api/costasset/v1/assets': {},
      'GET /api/costasset/v1/costs': {},
      'GET /api/costasset/v1/costs/forecast': {},
      'GET /api/costasset/v1/anomalies': {},
      'GET /api/costasset/v1/anomalies/settings': {},
      // settings are the tenant's (a System Admin's); triage is a Cost Data Manager's, within its visibility
      'PUT /api/costasset/v1/anomalies/settings': { call: { body: {} } },
      'PATCH /api/costasset/v1/anomalies/:id': byPath({ id: NO_SUCH_ID }, { body: { status: 'dismissed' }, admin: 404 }),
      'GET /api/costasset/v1/jobs': {},
      'GET /api/costasset/v1/focus/uploads': {},
      'GET /api/costasset/v1/providers/object-storage': {},
      'GET /api/costasset/v1/dynamicResourceGroups': {},
      'GET /api/costasset/v1/reportModels': {},
      'GET /api/costasset/v1/budgetController/budgets': {},
      // allocation settings are a System Admin's
      'GET /api/costasset/v1/allocation': {},
      'GET /api/costasset/v1/allocation/tagKeys': {},
      'POST /api/costasset/v1/allocation/tagKeys/activate': { call: { body: { group: 'matrix', key: 'owner' } } },
      'POST /api/costasset/v1/allocation/tagKeys/deactivate': { call: { body: { group: 'matrix', key: 'owner' } }, last: true },
      'GET /api/costasset/v1/allocation/dimensions': {},
      'GET /api/costasset/v1/allocation/splitRules': {},
      'GET /api/costasset/v1/allocation/providers': {},
      'PUT /api/costasset/v1/allocation/providers': { call: { body: { providers: [] } } },
      'PUT /api/costasset/v1/allocation/splitRules': { call: { body: { rules: [] } } },
      'GET /api/costasset/v1/allocation/showback': { call: { query: { dimension: 'dimension:matrix-dim' } } },
      'POST /api/costasset/v1/allocation/dimensions': { call: { body: { name: 'matrix-new', rules: [] } } },
      'POST /api/costasset/v1/allocation/dimensions/preview': {
        call: { body: { rules: [{ expr: "providerName == 'aws'", value: 'a' }] } },
      },
      'GET /api/costasset/v1/allocation/dimensions/:name': byPath({ name: 'matrix-dim' }, { absentPath: { name: 'no-such' } }),
      'PUT /api/costasset/v1/allocation/dimensions/:name': byPath(
        { name: 'matrix-dim' },
        { body: { rules: [], version: 1 }, absentPath: { name: 'no-such' } },
      ),
      'DELETE /api/costasset/v1/allocation/dimensions/:name': byPath({ name: 'matrix-doomed' }, { absentPath: { name: 'no-such' } }),
      'GET /api/costasset/v1/allocation/dimensions/:name/versions': byPath({ name: 'matrix-dim' }, { absentPath: { name: 'no-such' } }),
      // data connections are a System Admin's (the settings name a loopback endpoint: CONNECTION_HOST_NOT_ALLOWED)
      'POST /api/costasset/v1/connections': { call: { body: connectionBody }, admin: 400 },
      'POST /api/costasset/v1/connections/test': { call: { body: connectionBody }, admin: 400 },
      'GET /api/costasset/v1/connections': {},
      'GET /api/costasset/v1/connections/:id': byPath({ id: NO_SUCH_UUID }, { admin: 404 }),
      'PATCH /api/costasset/v1/connections/:id': byPath({ id: NO_SUCH_UUID }, { body: { enabled: false }, admin: 404 }),
      'DELETE /api/costasset/v1/connections/:id': byPath({ id: NO_SUCH_UUID }, { admin: 404 }),
      'POST /api/costasset/v1/connections/:id/test': byPath({ id: NO_SUCH_UUID }, { admin: 404 }),
      'POST /api/costasset/v1/connections/:id/sync': byPath({ id: NO_SUCH_UUID }, { admin: 404 }),
      'GET /api/costasset/v1/connections/:id/runs': byPath({ id: NO_SUCH_UUID }, { admin: 404 }),
      'GET /api/costasset/v1/connections/:id/runs/:runId': byPath({ id: NO_SUCH_UUID, runId: NO_SUCH_UUID }, { admin: 404 }),
      // notification channels and subscriptions are a System Admin's (a test send goes to the local SMTP server)
      'POST /api/costasset/v1/notificationChannels': {
        call: { body: { name: `${MARK} mail`, type: 'email', recipients: ['mxa@example.com'] } },
      },
      'GET /api/costasset/v1/notificationChannels': {},
      'GET /api/costasset/v1/notificationChannels/:id': byPath({ id: ids.channel }, { absentPath: { id: NO_SUCH_ID } }),
      'PATCH /api/costasset/v1/notificationChannels/:id': byPath(
        { id: ids.channel },
        { body: { name: `${MARK} mail` }, absentPath: { id: NO_SUCH_ID } },
      ),
      'DELETE /api/costasset/v1/notificationChannels/:id': byPath({ id: ids.doomedChannel }, { absentPath: { id: NO_SUCH_ID } }),
      'POST /api/costasset/v1/notificationChannels/:id/test': byPath({ id: ids.channel }, { absentPath: { id: NO_SUCH_ID } }),
      'GET /api/costasset/v1/notificationChannels/:id/deliveries': byPath({ id: ids.channel }, { absentPath: { id: NO_SUCH_ID } }),
      'POST /api/costasset/v1/notificationSubscriptions': {
        call: { body: { name: `${MARK} subscription`, channelIds: [ids.channel], topic: 'anomalies' } },
      },
      'GET /api/costasset/v1/notificationSubscriptions': {},
      'GET /api/costasset/v1/notificationSubscriptions/:id': byPath({ id: ids.subscription }, { absentPath: { id: NO_SUCH_ID } }),
      'PATCH /api/costasset/v1/notificationSubscriptions/:id': byPath(
        { id: ids.subscription },
        { body: { name: `${MARK} subscription` }, absentPath: { id: NO_SUCH_ID } },
      ),
      'DELETE /api/costasset/v1/notificationSubscriptions/:id': byPath({ id: ids.doomedSubscription }, { absentPath: { id: NO_SUCH_ID } }),
      'GET /api/costasset/v1/dataManagement': {},
      'GET /api/costasset/v1/dataManagement/accounts': {},
      'GET /api/costasset/v1/dataManagement/filters': {},
      'POST /orc/costasset/v1/housekeeping': {},
      'POST /orc/costasset/v1/housekeeping/clean': {},
      'POST /orc/costasset/v1/housekeeping/cleanupoutdateddata': {},
    } satisfies Record<string, RouteCase>);
  });
  afterAll(() => platform.close());

  const routesOf = (service: 'authz' | 'costasset'): (RouteAccess & { service: 'authz' | 'costasset'; key: string })[] =>
    (service === 'authz' ? platform.authz : platform.costasset).app
      .get(RouteCatalog)
      .routes()
      .map((route) => ({ ...route, service, key: `${route.method} ${route.path}` }));

  it('covers every route: each declares a rule, each has a line here, and nothing here is stale', () => {
    const routes = [...routesOf('authz'), ...routesOf('costasset')];
    expect(routes.length).toBeGreaterThan(90);
    expect(routes.filter((route) => route.rule === undefined)).toEqual([]);
    const known = new Set(Object.keys(cases));
    expect(routes.filter((route) => !known.has(route.key)).map((route) => route.key)).toEqual([]);
    const keys = new Set(routes.map((route) => route.key));
    expect([...known].filter((key) => !keys.has(key))).toEqual([]);
  });

  it('documents each rule in the OpenAPI documents as x-access', async () => {
    for (const service of ['authz', 'costasset'] as const) {
      const doc = (await request(base(service)).get(`/docs/${service}/openapi.json`).expect(200)).body as {
        paths: Record<string, Record<string, { 'x-access'?: string }>>;
      };
      const documented = routesOf(service).map((route) => ({
        route: route.key,
        access: doc.paths[route.path.replace(/:(\w+)/g, '{$1}')]?.[route.method.toLowerCase()]?.['x-access'],
      }));
      expect(documented).toEqual(routesOf(service).map((route) => ({ route: route.key, access: route.rule })));
    }
  });

  const RULE_REFUSALS = ['SYSTEM_ADMIN_REQUIRED', 'COST_DATA_MANAGER_REQUIRED', 'TEAM_REQUIRED'];
  const isAuthRefusal = (res: request.Response) =>
    (res.status === 401 && /^TOKEN_/.test(res.body?.code ?? '')) || RULE_REFUSALS.includes(res.body?.code);

  // before any other test: the other tenant's admin has created nothing yet that could share a name with these records
  it("answers another tenant's System Admin as if the tenant's records did not exist, and never shows them", async () => {
    const routes = [...routesOf('authz'), ...routesOf('costasset')];
    const failures: string[] = [];
    for (const route of routes.filter((candidate) => cases[candidate.key]?.absent)) {
      const routeCase = cases[route.key];
      const existing = await send(route.service, route.method, route.path, routeCase.call ?? {}, tokens.otherTenantAdmin);
      const missing = await send(route.service, route.method, route.path, routeCase.absent ?? {}, tokens.otherTenantAdmin);
      if (existing.status !== missing.status || existing.body?.code !== missing.body?.code) {
        failures.push(
          `${route.key}: an existing record (${existing.status} ${existing.body?.code}) ` +
            `is told from a missing one (${missing.status} ${missing.body?.code})`,
        );
      }
    }
    const reads = routes.filter((route) => route.method === 'GET' && !route.path.includes(':') && route.rule !== 'public');
    expect(reads.length).toBeGreaterThan(25);
    for (const route of reads) {
      const res = await send(route.service, route.method, route.path, cases[route.key]?.call ?? {}, tokens.otherTenantAdmin);
      if (res.status >= 500 || isAuthRefusal(res)) failures.push(`${route.key}: ${res.status} ${res.body?.code}`);
      if (JSON.stringify(res.body ?? '').includes(MARK)) failures.push(`${route.key}: shows records of another tenant`);
    }
    expect(failures).toEqual([]);
  });

  /** The 403 code a caller gets from a route's rule, before the route runs; undefined when the rule admits it. */
  const refusalOf = (route: RouteAccess, caller: TenantCaller): string | undefined => {
    if (route.rule === 'system-admin') return 'SYSTEM_ADMIN_REQUIRED';
    if (route.rule === 'signed-in' || route.rule === 'public') return undefined;
    if (caller === 'memberNoTeam') return 'TEAM_REQUIRED';
    if (route.rule === 'cost-data' && caller === 'memberWithTeam') return 'COST_DATA_MANAGER_REQUIRED';
    return undefined;
  };
  const expectedOf = (routeCase: RouteCase, caller: TenantCaller) => {
    const member = routeCase.member;
    if (member === undefined) return routeCase.admin;
    return typeof member === 'number' ? member : (member[caller] ?? routeCase.admin);
  };
  const matches = (status: number, expected: number | undefined) =>
    expected === undefined ? status >= 200 && status < 300 : status === expected;

  it('answers each caller of each route as its rule says', async () => {
    const failures: string[] = [];
    const note = (route: { key: string }, caller: Caller, detail: string) => failures.push(`${route.key} as ${caller}: ${detail}`);
    let requests = 0;
    // what removes records runs after what reads or changes them
    const rank = (route: { key: string; method: string }) => (cases[route.key]?.last ? 2 : route.method === 'DELETE' ? 1 : 0);
    const routes = [...routesOf('authz'), ...routesOf('costasset')].sort((a, b) => rank(a) - rank(b));
    for (const route of routes) {
      const routeCase: RouteCase = cases[route.key] ?? {};
      const call = routeCase.call ?? {};
      const ask = (token: string | undefined, what: Call = call) => {
        requests += 1;
        return send(route.service, route.method, route.path, what, token);
      };
      if (route.rule === 'public') {
        const answers = await Promise.all([undefined, tokens.expired, tokens.memberNoTeam].map((token) => ask(token)));
        if (new Set(answers.map((res) => res.status)).size !== 1)
          note(route, 'noToken', `public route answers differently by caller: ${answers.map((res) => res.status)}`);
        continue;
      }
      const noToken = await ask(undefined);
      if (noToken.status !== 401 || noToken.body.code !== 'TOKEN_MISSING') note(route, 'noToken', `${noToken.status} ${noToken.body.code}`);
      const expired = await ask(tokens.expired);
      if (expired.status !== 401 || expired.body.code !== 'TOKEN_EXPIRED') note(route, 'expired', `${expired.status} ${expired.body.code}`);

      const foreign = await ask(tokens.otherTenantAdmin);
      if (foreign.status >= 500 || isAuthRefusal(foreign)) note(route, 'otherTenantAdmin', `${foreign.status} ${foreign.body.code}`);

      for (const caller of ['memberNoTeam', 'memberWithTeam', 'costDataManager'] as const) {
        const res = await ask(tokens[caller]);
        const refusal = refusalOf(route, caller);
        if (refusal !== undefined) {
          if (res.status !== 403 || res.body?.code !== refusal)
            note(route, caller, `${res.status} ${res.body?.code ?? ''}, expected 403 ${refusal}`);
          continue;
        }
        const expected = expectedOf(routeCase, caller);
        if (!matches(res.status, expected)) note(route, caller, `${res.status} ${res.body?.code ?? ''}, expected ${expected ?? '2xx'}`);
      }

      const own = await ask(tokens.admin);
      if (!matches(own.status, routeCase.admin))
        note(route, 'admin', `${own.status} ${own.body?.code ?? ''}, expected ${routeCase.admin ?? '2xx'}`);
    }
    process.stdout.write(`authorization matrix: ${routes.length} routes, ${requests} requests\n`);
    expect(failures).toEqual([]);
  });
});
