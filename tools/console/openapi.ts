/**
 * Builds both services' OpenAPI documents offline and turns them into the web console's API types.
 * Each app is created in Nest's preview mode (modules and controllers are read, no provider is
 * instantiated, so no database, NATS or object store is needed), the document is built exactly as
 * the running service builds it for /docs, and openapi-typescript writes `<service>.d.ts` next to
 * `<service>.openapi.json` in apps/console/src/api/generated/ (not committed: the console's types
 * always follow the code). Run under swc (decorator metadata): `npm run console:api`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { DynamicModule, INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import openapiTS, { astToString } from 'openapi-typescript';
import { loadEnvironment } from '@lib/config';
import { buildOpenApiDocument, SwaggerOptions } from '@lib/http';
import { AuthzEnvironment } from '../../apps/authz/src/authz.environment';
import { AuthzModule } from '../../apps/authz/src/authz.module';
import { authzApiDocs } from '../../apps/authz/src/create-authz-app';
import { CostassetEnvironment } from '../../apps/costasset/src/costasset.environment';
import { CostassetModule } from '../../apps/costasset/src/costasset.module';
import { costassetApiDocs } from '../../apps/costasset/src/create-costasset-app';

export const GENERATED_DIR = path.join(__dirname, '..', '..', 'apps', 'console', 'src', 'api', 'generated');

const SERVICES: { name: string; module: () => DynamicModule; docs: SwaggerOptions }[] = [
  { name: 'authz', module: () => AuthzModule.forRoot(loadEnvironment(AuthzEnvironment, {})), docs: authzApiDocs() },
  { name: 'costasset', module: () => CostassetModule.forRoot(loadEnvironment(CostassetEnvironment, {})), docs: costassetApiDocs() },
];

async function documentOf(module: DynamicModule, docs: SwaggerOptions) {
  const app = (await NestFactory.create(module, { preview: true, logger: false, abortOnError: false })) as INestApplication;
  try {
    return buildOpenApiDocument(app, docs);
  } finally {
    await app.close();
  }
}

async function main(): Promise<void> {
  fs.mkdirSync(GENERATED_DIR, { recursive: true });
  for (const service of SERVICES) {
    const document = await documentOf(service.module(), service.docs);
    const json = path.join(GENERATED_DIR, `${service.name}.openapi.json`);
    fs.writeFileSync(json, `${JSON.stringify(document, null, 2)}\n`);
    const types = astToString(await openapiTS(JSON.parse(JSON.stringify(document)), { exportType: true, alphabetize: true }));
    const header = `// Generated from ${service.name}'s OpenAPI document by tools/console/openapi.ts: do not edit.\n`;
    fs.writeFileSync(path.join(GENERATED_DIR, `${service.name}.d.ts`), header + types);
    process.stdout.write(`console: ${service.name} API types from ${Object.keys(document.paths).length} paths\n`);
  }
}

main().catch((error: Error) => {
  process.stderr.write(`console: the OpenAPI documents could not be built: ${error.stack ?? error.message}\n`);
  process.exit(1);
});
