/**
 * Both services' OpenAPI documents, built offline exactly as the running services build them for
 * /docs/<service>. Each app is created in Nest's preview mode (modules and controllers are read,
 * no provider is instantiated, so no database, NATS or object store is needed). Used by the console's
 * API types (tools/console/openapi.ts), the committed snapshots in docs/openapi/ (tools/openapi/snapshot.ts)
 * and the unit spec that compares the two (tools/openapi/openapi.spec.ts). Needs decorator metadata: run
 * under swc (`node -r ./test/support/swc-register.js`, or Jest).
 */
import * as path from 'node:path';
import type { DynamicModule, INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { OpenAPIObject } from '@nestjs/swagger';
import { loadEnvironment } from '@lib/config';
import { buildOpenApiDocument, SwaggerOptions } from '@lib/http';
import { AuthzEnvironment } from '../../apps/authz/src/authz.environment';
import { AuthzModule } from '../../apps/authz/src/authz.module';
import { authzApiDocs } from '../../apps/authz/src/create-authz-app';
import { CostassetEnvironment } from '../../apps/costasset/src/costasset.environment';
import { CostassetModule } from '../../apps/costasset/src/costasset.module';
import { costassetApiDocs } from '../../apps/costasset/src/create-costasset-app';

export type ServiceName = 'authz' | 'costasset';

export const SERVICES: { name: ServiceName; module: () => DynamicModule; docs: () => SwaggerOptions }[] = [
  { name: 'authz', module: () => AuthzModule.forRoot(loadEnvironment(AuthzEnvironment, {})), docs: () => authzApiDocs() },
  { name: 'costasset', module: () => CostassetModule.forRoot(loadEnvironment(CostassetEnvironment, {})), docs: () => costassetApiDocs() },
];

/** Where the committed snapshots of the documents live (`docs/openapi/<service>.json`). */
export const SNAPSHOT_DIR = path.join(__dirname, '..', '..', 'docs', 'openapi');

export const snapshotPath = (service: ServiceName): string => path.join(SNAPSHOT_DIR, `${service}.json`);

/** A document as the snapshots store it: pretty-printed, keys in the order @nestjs/swagger produces them. */
export const serializeDocument = (document: OpenAPIObject): string => `${JSON.stringify(document, null, 2)}\n`;

/** One service's document, from an app created in preview mode. */
export async function buildServiceDocument(service: (typeof SERVICES)[number]): Promise<OpenAPIObject> {
  const app = (await NestFactory.create(service.module(), { preview: true, logger: false, abortOnError: false })) as INestApplication;
  try {
    return await buildOpenApiDocument(app, service.docs());
  } finally {
    await app.close();
  }
}
