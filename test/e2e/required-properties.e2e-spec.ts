import request from 'supertest';
import { jsonBodyOf, OpenApi, operationsOf, resolveSchema, Schema } from '../support/openapi';
import { Platform, startPlatform } from '../support/platform';

/**
 * Presence, derived from the OpenAPI documents rather than a hand list: for every operation of both
 * services, leaving out any one required body property (at any depth) or required query parameter,
 * with everything else present, is a 400 that names it. A DTO that documents a property as required
 * but lets it through (the missing budget `scope` that crashed the service) fails here.
 */

/** Values for required query parameters, so that a body's problems are the ones reported. */
const QUERY_VALUES: Record<string, string> = {
  providername: 'presence-aws',
  providerName: 'aws',
  templateId: 'cost-trend',
  ProviderCode: 'presence',
  Filename: 'presence.zip',
  templateParams: '{}',
  dimension: 'dimension:presence',
  key: 'presence/key',
};

describe('required properties of every operation', () => {
  let platform: Platform;
  let admin: string;

  beforeAll(async () => {
    platform = await startPlatform();
    admin = await platform.token({ sub: 'admin' });
  });
  afterAll(() => platform.close());

  it.each(['authz', 'costasset'] as const)(
    '%s: leaving out any required property or query parameter is a 400 naming it',
    async (service) => {
      const url = service === 'authz' ? platform.authz.url : platform.costasset.url;
      const doc = (await request(url).get(`/docs/${service}/openapi.json`).expect(200)).body as OpenApi;
      const resolve = (schema: Schema | undefined): Schema => resolveSchema(doc, schema);

      /** A value of the schema's shape with every required property present (not necessarily valid). */
      const filler = (schema: Schema): unknown => {
        const resolved = resolve(schema);
        if (resolved.enum?.length) return resolved.enum[0];
        if (resolved.type === 'array') return resolved.items && resolve(resolved.items).properties ? [filler(resolved.items)] : [];
        if (resolved.type === 'number' || resolved.type === 'integer') return 1;
        if (resolved.type === 'boolean') return true;
        if (resolved.properties || resolved.type === 'object') {
          return Object.fromEntries((resolved.required ?? []).map((name) => [name, filler(resolved.properties?.[name] ?? {})]));
        }
        return 'x';
      };
      /** Every required property path, nested objects and array items included (`scope.expr`, `items.0.key`). */
      const requiredPaths = (schema: Schema, prefix: string[] = []): string[][] => {
        const resolved = resolve(schema);
        if (resolved.type === 'array' && resolved.items) return requiredPaths(resolved.items, [...prefix, '0']);
        return (resolved.required ?? []).flatMap((name) => [
          [...prefix, name],
          ...requiredPaths(resolved.properties?.[name] ?? {}, [...prefix, name]),
        ]);
      };
      const without = (value: unknown, path: string[]): unknown => {
        const copy = structuredClone(value) as Record<string, unknown>;
        let at: Record<string, unknown> = copy;
        for (const step of path.slice(0, -1)) at = at[step] as Record<string, unknown>;
        delete at[path[path.length - 1]];
        return copy;
      };
      const fieldsOf = (res: request.Response): string[] =>
        ((res.body?.errors ?? []) as { field: string }[]).map((error) => error.field.replace(/\[(\d+)\]/g, '.$1').replace(/^\./, ''));

      const failures: string[] = [];
      let checked = 0;
      for (const { path, method, operation } of operationsOf(doc)) {
        const target = path.replace(/\{\w+\}/g, 'presence-id');
        const query = (operation.parameters ?? []).filter((param) => param.in === 'query' && param.required);
        const values: Record<string, string> = {};
        for (const param of query) {
          if (!(param.name in QUERY_VALUES))
            failures.push(`${method.toUpperCase()} ${path}: no value for the required query parameter ${param.name}`);
          values[param.name] = QUERY_VALUES[param.name] ?? 'x';
        }
        const schema = jsonBodyOf(operation);
        const body = schema ? filler(schema) : undefined;
        const send = (params: Record<string, string>, payload: unknown) => {
          const req = request(url)[method as 'post'](target).query(params).set('corelite-token', admin);
          return payload === undefined ? req : req.send(payload as object);
        };

        for (const param of query) {
          checked += 1;
          const { [param.name]: _left, ...rest } = values;
          const res = await send(rest, body);
          if (res.status !== 400 || !fieldsOf(res).includes(param.name)) {
            failures.push(`${method.toUpperCase()} ${path} without query ${param.name}: ${res.status} ${JSON.stringify(fieldsOf(res))}`);
          }
        }
        for (const omitted of schema ? requiredPaths(schema) : []) {
          checked += 1;
          const res = await send(values, without(body, omitted));
          const name = omitted.join('.');
          if (res.status !== 400 || res.body?.code !== 'VALIDATION_FAILED' || !fieldsOf(res).includes(name)) {
            failures.push(
              `${method.toUpperCase()} ${path} without ${name}: ${res.status} ${res.body?.code} ${JSON.stringify(fieldsOf(res))}`,
            );
          }
        }
      }
      process.stdout.write(`required properties (${service}): ${checked} omissions checked\n`);
      expect(checked).toBeGreaterThan(service === 'authz' ? 10 : 30);
      expect(failures).toEqual([]);
    },
  );
});
