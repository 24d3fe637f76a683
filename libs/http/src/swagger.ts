import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

export interface SwaggerOptions {
  title: string;
  description: string;
  version: string;
  /** Where the Swagger UI is served, e.g. `docs/authz`; the document is at `<path>/openapi.json` (and `.yaml`). */
  path: string;
  /** The server the document declares: the gateway's public URL, or `/` (the origin the document came from). */
  serverUrl?: string;
}

export const TOKEN_SECURITY = ['corelite-token-header', 'corelite-token-cookie', 'bearer'] as const;

/** The OpenAPI document of an app (also built offline, from an app created in preview mode: tools/console/openapi.ts). */
export function buildOpenApiDocument(app: INestApplication, options: SwaggerOptions): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle(options.title)
    .setDescription(options.description)
    .setVersion(options.version)
    .addServer(options.serverUrl ?? '/', options.serverUrl ? 'the gateway' : 'the address this document was read from (the gateway, or the service itself)')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'corelite-token', description: 'The corelite-token JWT' }, 'corelite-token-header')
    .addApiKey({ type: 'apiKey', in: 'cookie', name: 'corelite-token', description: 'The corelite-token JWT as a cookie' }, 'corelite-token-cookie')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, 'bearer')
    .addSecurityRequirements('corelite-token-header')
    .addSecurityRequirements('corelite-token-cookie')
    .addSecurityRequirements('bearer')
    .build();
  return SwaggerModule.createDocument(app, config);
}

/**
 * Swagger UI at `/<path>`, the OpenAPI document at `/<path>/openapi.json` and `/<path>/openapi.yaml`
 * (the same paths directly and through the gateway); the corelite-token declared three ways.
 */
export function setupSwagger(app: INestApplication, options: SwaggerOptions): void {
  SwaggerModule.setup(options.path, app, buildOpenApiDocument(app, options), {
    jsonDocumentUrl: `${options.path}/openapi.json`,
    yamlDocumentUrl: `${options.path}/openapi.yaml`,
  });
}
