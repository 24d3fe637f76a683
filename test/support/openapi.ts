/** The parts of an OpenAPI 3 document the suite reads (each service's `/docs/<service>/openapi.json`). */
export interface Schema {
  $ref?: string;
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Schema;
}

export interface Operation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}

export interface OpenApi {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** A schema with its `$ref` followed (one level: the components are flat). */
export function resolveSchema(doc: OpenApi, schema: Schema | undefined): Schema {
  if (!schema?.$ref) return schema ?? {};
  return doc.components?.schemas?.[schema.$ref.replace('#/components/schemas/', '')] ?? {};
}

/** Every operation of the document, with its path as written there (`/budgets/{id}`). */
export function operationsOf(doc: OpenApi): { path: string; method: string; operation: Operation }[] {
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => ({ path, method, operation })),
  );
}

/** The JSON body schema of an operation, if it takes one. */
export const jsonBodyOf = (operation: Operation): Schema | undefined => operation.requestBody?.content?.['application/json']?.schema;
