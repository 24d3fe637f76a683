import { INestApplication } from '@nestjs/common';
import { loadEnvironment } from '@lib/config';
import { createHttpApp, inputLimitsFrom, SwaggerOptions } from '@lib/http';
import { CostassetEnvironment } from './costasset.environment';
import { CostassetModule } from './costasset.module';
import metadata from './metadata';

/**
 * How costasset's OpenAPI document describes itself (served at /docs/costasset; built offline for the console by
 * tools/console/openapi.ts).
 */
export function costassetApiDocs(serverUrl?: string): SwaggerOptions {
  return {
    title: 'corelite costasset',
    version: '1',
    path: 'docs/costasset',
    serverUrl,
    metadata,
    description:
      'Cloud cost and asset management: provider data (GPD), extensions, currency, provider metadata, resource groups, ' +
      'report models, budgets, housekeeping and ingestion. Errors are application/problem+json (RFC 9457) with a stable `code`. ' +
      "Guides (served by the gateway under /docs/, and in the repository's docs/ folder): [the interface](/docs/interface.md), " +
      '[tokens, statuses, errors and jobs](/docs/decisions.md), [configuration](/docs/configuration.md).',
  };
}

export async function createCostassetApp(
  source: NodeJS.ProcessEnv = process.env,
): Promise<{ app: INestApplication; env: CostassetEnvironment }> {
  const env = loadEnvironment(CostassetEnvironment, source);
  const app = await createHttpApp(CostassetModule.forRoot(env), {
    limits: inputLimitsFrom(env),
    swagger: env.SWAGGER_ENABLED ? costassetApiDocs(env.PUBLIC_BASE_URL) : undefined,
  });
  return { app, env };
}
