import { INestApplication } from '@nestjs/common';
import { loadEnvironment } from '@lib/config';
import { createHttpApp, inputLimitsFrom, SwaggerOptions } from '@lib/http';
import { AuthzEnvironment } from './authz.environment';
import { AuthzModule } from './authz.module';
import metadata from './metadata';

/** How authz's OpenAPI document describes itself (served at /docs/authz; built offline for the console by tools/console/openapi.ts). */
export function authzApiDocs(serverUrl?: string): SwaggerOptions {
  return {
    title: 'corelite authz',
    version: '1',
    path: 'docs/authz',
    serverUrl,
    metadata,
    description:
      'Authorization configuration (auth types, IdP mappings, user-teams, directory), core configuration values and feature flags. ' +
      'Errors are application/problem+json (RFC 9457) with a stable `code`. ' +
      "Guides (served by the gateway under /docs/, and in the repository's docs/ folder): [the interface](/docs/interface.md), " +
      '[tokens, statuses, errors and jobs](/docs/decisions.md), [configuration](/docs/configuration.md).',
  };
}

export async function createAuthzApp(source: NodeJS.ProcessEnv = process.env): Promise<{ app: INestApplication; env: AuthzEnvironment }> {
  const env = loadEnvironment(AuthzEnvironment, source);
  const app = await createHttpApp(AuthzModule.forRoot(env), {
    limits: inputLimitsFrom(env),
    swagger: env.SWAGGER_ENABLED ? authzApiDocs(env.PUBLIC_BASE_URL) : undefined,
  });
  return { app, env };
}
