import request from 'supertest';
import { Platform, servedDirectly, startPlatform } from '../support/platform';
import { seedLineItems } from '../support/line-item-seed';
import { jsonBodyOf, OpenApi, Operation, operationsOf, resolveSchema, Schema } from '../support/openapi';

/**
 * Every operation of both services, read from their OpenAPI documents, receives invalid variants
 * of its body, query and path: malformed and deeply nested JSON, wrong types, operator objects,
 * unknown fields, prototype keys, control characters and broken UTF-16, oversized strings,
 * arrays and bodies, junk path and query parameters. None may be answered with a 5xx or accepted
 * (2xx), every 4xx is problem+json, the stored data is the same afterwards (every list, before
 * and after), and both services are still ready.
 */

interface Variant {
  label: string;
  path: string;
  query?: string;
  body?: string;
  contentType?: string;
}

type Service = 'authz' | 'costasset';
interface Target {
  service: Service;
  method: string;
  path: string;
  operation: Operation;
  doc: OpenApi;
}

const OPERATORS = [{ $gt: '' }, { $where: 'sleep(100)' }];
/** NUL, a noncharacter, a lone surrogate, a string over HTTP_JSON_MAX_STRING_LENGTH. */
const BAD_STRINGS = ['a\u0000b', 'a\uffffb', '\ud800', 'x'.repeat(140_000)];
const JUNK_SEGMENTS = ['%00', '%7B%22%24gt%22%3A%22%22%7D', '..%2F..%2Fetc', '%FF', '__proto__', 'x'.repeat(2000), '%E0%A4%A', '%C0%AF'];

const nestedArrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const nestedObjects = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

function wrongTypesFor(schema: Schema): unknown[] {
  switch (schema.type) {
    case 'string':
      return [12345, {}, [], ...OPERATORS, ...BAD_STRINGS];
    case 'number':
    case 'integer':
      return ['abc', {}, ...OPERATORS];
    case 'boolean':
      return ['maybe', {}, ...OPERATORS];
    case 'array':
      return ['text', { 0: 'a' }, Array.from({ length: 10_001 }, () => 0), [{ $gt: '' }], ...OPERATORS];
    default:
      return ['text', 1, [], ...OPERATORS, { __proto__x: 1 }];
  }
}

/** Invalid variants of one operation; `path` is its path with every parameter filled. */
function variantsOf(target: Target, filledPath: string): Variant[] {
  const { operation, doc } = target;
  const variants: Variant[] = [];
  const params = operation.parameters ?? [];
  const bodySchema = jsonBodyOf(operation);
  const add = (label: string, variant: Omit<Variant, 'label' | 'path'> & { path?: string }) =>
    variants.push({ label, path: filledPath, ...variant });

  // bodies: every variant where the operation takes one, the ones a body-less operation must refuse too where it does not
  const json = (value: unknown) => JSON.stringify(value);
  const takesBody = bodySchema !== undefined;
  add('malformed JSON', { body: '{"a":', contentType: 'application/json' });
  add('JSON nested 5000 deep (arrays)', { body: nestedArrays(5000), contentType: 'application/json' });
  add('unknown field', { body: json({ unknownField_zz: 1 }), contentType: 'application/json' });
  add('__proto__ key', { body: '{"__proto__":{"isSystemAdmin":true}}', contentType: 'application/json' });
  add('text body', { body: 'just text', contentType: 'text/plain' });
  if (takesBody) {
    add('JSON nested 5000 deep (objects)', { body: nestedObjects(5000), contentType: 'application/json' });
    add('JSON nested 40 deep', { body: json({ a: JSON.parse(nestedArrays(39)) }), contentType: 'application/json' });
    add('JSON null', { body: 'null', contentType: 'application/json' });
    add('JSON string', { body: '"text"', contentType: 'application/json' });
    add('operator at the top', { body: json({ $set: { tenantId: 'other' } }), contentType: 'application/json' });
    add('tenantId smuggled', { body: json({ tenantId: 'other' }), contentType: 'application/json' });
    add('constructor.prototype key', { body: json({ constructor: { prototype: { polluted: true } } }), contentType: 'application/json' });
    add('body over HTTP_BODY_LIMIT_BYTES', { body: json({ a: 'x'.repeat(1_100_000) }), contentType: 'application/json' });
    add('form body', { body: 'unknownField_zz=1&__proto__[x]=1', contentType: 'application/x-www-form-urlencoded' });
    add('charset other than UTF-8', { body: json({ a: 1 }), contentType: 'application/json; charset=utf-16le' });
  }

  const schema = resolveSchema(doc, bodySchema);
  const isArrayBody = schema.type === 'array';
  const itemSchema = isArrayBody ? resolveSchema(doc, schema.items) : schema;
  const wrap = (value: object) => (isArrayBody ? [value] : value);
  if (bodySchema) {
    add('wrong top-level type', { body: json(isArrayBody ? { a: 1 } : [{ a: 1 }]), contentType: 'application/json' });
    for (const [property, propertySchema] of Object.entries(itemSchema.properties ?? {})) {
      for (const [index, value] of wrongTypesFor(resolveSchema(doc, propertySchema)).entries()) {
        add(`${property} #${index}`, { body: json(wrap({ [property]: value })), contentType: 'application/json' });
      }
      add(`${property} with a prototype key inside`, {
        body: json(wrap({ [property]: { constructor: { prototype: {} } } })),
        contentType: 'application/json',
      });
    }
  }

  // query strings
  const declared = params.filter((param) => param.in === 'query');
  for (const param of declared) {
    const name = encodeURIComponent(param.name);
    add(`query ${param.name} as operator`, { query: `${name}[$gt]=` });
    add(`query ${param.name} as array`, { query: `${name}[]=a&${name}[]=b` });
    add(`query ${param.name} with NUL`, { query: `${name}=a%00b` });
    add(`query ${param.name} with a lone surrogate`, { query: `${name}=%ED%A0%80` });
    add(`query ${param.name} oversized`, { query: `${name}=${'x'.repeat(6000)}` });
    if (resolveSchema(doc, param.schema).type !== 'string') add(`query ${param.name} of the wrong type`, { query: `${name}=not-a-value` });
  }
  add('unknown query parameter', { query: 'unknownField_zz=1' });
  add('query nested too deep', { query: 'a[b][c][d][e][f][g]=1' });
  add('too many query parameters', { query: Array.from({ length: 150 }, (_, i) => `p${i}=1`).join('&') });
  add('query __proto__', { query: '__proto__[isSystemAdmin]=true' });
  add('query constructor.prototype', { query: 'constructor[prototype][x]=1' });
  add('request line over the header limit', { query: `q=${'x'.repeat(20_000)}` });

  // junk path parameters
  const pathParams = params.filter((param) => param.in === 'path');
  for (const param of pathParams) {
    for (const junk of JUNK_SEGMENTS) {
      add(`path ${param.name} = ${junk.slice(0, 24)}`, { path: filledPath.replace(encodeURIComponent(PATH_VALUE), junk) });
    }
  }
  return variants;
}

const PATH_VALUE = 'hostile-id';
/** Fields that change without anything being stored (a token's last use, generated times, pre-signed URLs). */
const VOLATILE = new Set(['last_seen_at', 'generatedAt', 'expiresAt', 'uploadUrl', 'preSignedUrl', 'requestId']);
const normalize = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(normalize)
    : value && typeof value === 'object'
      ? Object.fromEntries(
          Object.entries(value)
            .filter(([key]) => !VOLATILE.has(key))
            .map(([key, item]) => [key, normalize(item)]),
        )
      : value;

/** Values for the query parameters a list needs, to read it before and after. */
const LIST_QUERY: Record<string, string> = { providername: 'hostile-aws', providerName: 'aws' };

/**
 * Requests sent at once, often several to one heavy route. The gateway counts each against the
 * heavy bound from when it sends it until it has read the answer, longer than the instance itself
 * does (a refused input takes it a fraction of a millisecond): the bound is the pool's width, so
 * that no variant is refused for being sent beside the others.
 */
const CONCURRENCY = 6;

async function pool<T>(items: T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

describe('hostile input against every operation', () => {
  let platform: Platform;
  let admin: string;
  const docs = {} as Record<Service, OpenApi>;

  const url = (service: Service) => (service === 'authz' ? platform.authz.url : platform.costasset.url);
  /** Health and metrics are each service's own paths, not routed by the gateway: they are called on the service. */
  const urlFor = (service: Service, path: string) =>
    servedDirectly(path) ? (service === 'authz' ? platform.authz.directUrl : platform.costasset.directUrl) : url(service);

  beforeAll(async () => {
    platform = await startPlatform({ HTTP_MAX_HEAVY_IN_FLIGHT: String(CONCURRENCY) });
    admin = await platform.token({ sub: 'admin' });
    const as = (service: Service, method: 'post' | 'put', path: string, body?: object, query?: Record<string, string>) => {
      const agent = request(url(service));
      return agent[method](path)
        .query(query ?? {})
        .set('corelite-token', admin)
        .send(body)
        .expect((res) => expect(res.status).toBeLessThan(300));
    };
    await as('authz', 'post', '/authorization/v2/teams', { team_code: 'HOSTILE-TEAM', org_code: 'hostile-org', roles: [] });
    await as('authz', 'post', '/authorization/v2/users', { user_id: 'hostile-user' });
    await as('authz', 'put', '/core/configuration/v1/configvalues', { configurationkey: 'HOSTILE_KEY', configurationvalue: 'kept' });
    await as('authz', 'post', '/core/featureflagmanagement/v1/featureflag', { flag_key: 'HOSTILE_FLAG', flag_value: 'true' });
    await as('costasset', 'post', '/api/costasset/v1/dynamicResourceGroups', {
      _id: PATH_VALUE,
      type: 'budgetary',
      expr: 'providerName == "aws"',
      context: { teams: ['HOSTILE-TEAM'] },
    });
    await as('costasset', 'post', '/api/costasset/v1/budgetController/budgets', {
      name: 'hostile budget',
      amount: 10,
      currency: 'USD',
      scope: { groupId: PATH_VALUE },
      startPeriod: '202410',
      endPeriod: '202410',
      thresholds: [50],
    });
    await as(
      'costasset',
      'post',
      `/api/costasset/v1/reportModels/${PATH_VALUE}`,
      { append: false, type: 'v1', vtags: [], expr: 'period == ${period}' },
      { templateId: 'cost-by-provider' },
    );
    await as('costasset', 'post', '/api/costasset/v1/providers/object-storage', {
      providerName: 'Hostile store',
      providerCode: PATH_VALUE,
    });
    await as('costasset', 'post', '/api/costasset/v1/gpd', undefined, { providername: 'hostile-aws' });
    await as(
      'costasset',
      'post',
      '/api/costasset/v1/providermetadata/service_categories',
      [{ providerName: 'aws', assetType: 'vm', serviceCategory: 'Compute' }],
      { providerName: 'aws' },
    );
    await seedLineItems(platform, 'default', [
      { providerName: 'aws', billingAccountId: 'acct', category: 'Compute', region: 'eu-west-1', period: '202410', cost: 12.5 },
    ]);
    for (const service of ['authz', 'costasset'] as const)
      docs[service] = (await request(url(service)).get(`/docs/${service}/openapi.json`).expect(200)).body as OpenApi;
  });
  afterAll(() => platform.close());

  const targets = (): Target[] =>
    (['authz', 'costasset'] as const).flatMap((service) =>
      operationsOf(docs[service]).map((found) => ({ ...found, service, doc: docs[service] })),
    );

  /** Every list (a GET without path parameters) as the System Admin sees it, volatile fields left out. */
  async function snapshot(): Promise<Record<string, unknown>> {
    const lists: Record<string, unknown> = {};
    for (const target of targets().filter((candidate) => candidate.method === 'get' && !candidate.path.includes('{'))) {
      const required = (target.operation.parameters ?? []).filter((param) => param.in === 'query' && param.required);
      if (required.some((param) => !(param.name in LIST_QUERY))) continue;
      const query = Object.fromEntries(required.map((param) => [param.name, LIST_QUERY[param.name]]));
      const res = await request(urlFor(target.service, target.path)).get(target.path).query(query).set('corelite-token', admin);
      lists[`${target.service} ${target.path}`] = { status: res.status, body: normalize(res.body) };
    }
    return lists;
  }

  // the time limit only keeps a stalled run from hanging the suite; the run prints how long it took
  it('refuses every invalid variant of every operation, changes nothing and stays ready', async () => {
    const started = Date.now();
    const before = await snapshot();
    expect(Object.keys(before).length).toBeGreaterThan(30);
    const all = targets();
    const requests = all.flatMap((target) => {
      const filled = target.path.replace(/\{(\w+)\}/g, () => encodeURIComponent(PATH_VALUE));
      return variantsOf(target, filled).map((variant) => ({ target, variant }));
    });
    const failures: string[] = [];
    await pool(requests, CONCURRENCY, async ({ target, variant }) => {
      const path = variant.query ? `${variant.path}?${variant.query}` : variant.path;
      let req = request(urlFor(target.service, path))[target.method as 'get'](path).set('corelite-token', admin);
      if (variant.body !== undefined) req = req.set('content-type', variant.contentType ?? 'application/json').send(variant.body);
      const res = await req;
      const where = `${target.method.toUpperCase()} ${target.path} [${variant.label}]`;
      if (res.status < 400 || res.status >= 500) failures.push(`${where}: ${res.status} ${res.body?.code ?? ''}`);
      else if (!/^application\/problem\+json/.test(res.headers['content-type'] ?? '') || typeof res.body?.code !== 'string') {
        failures.push(`${where}: ${res.status} without a problem body`);
      }
    });
    process.stdout.write(
      `hostile input: ${all.length} operations, ${requests.length} requests, ` +
        `${failures.length} failures, ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
    );
    expect(failures.slice(0, 50)).toEqual([]);

    expect(await snapshot()).toEqual(before);
    for (const service of ['authz', 'costasset'] as const) await request(url(service)).get(`/health/${service}/ready`).expect(200);
  }, 180_000);
});
