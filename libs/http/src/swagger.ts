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
  /**
   * The service's Swagger plugin metadata (the default export of its generated `src/metadata.ts`,
   * `npm run openapi:metadata`): the DTOs' schemas as their types, class-validator decorators and doc comments declare them.
   */
  metadata?: () => Promise<Record<string, unknown>>;
}

export const TOKEN_SECURITY = ['corelite-token-header', 'bearer'] as const;

/**
 * The OpenAPI document of an app (also built offline, from an app created in preview mode: tools/openapi/documents.ts).
 * The plugin metadata is loaded first, the one way it reaches the DTOs however the service was compiled.
 */
export async function buildOpenApiDocument(app: INestApplication, options: SwaggerOptions): Promise<OpenAPIObject> {
  if (options.metadata) await SwaggerModule.loadPluginMetadata(options.metadata);
  const config = new DocumentBuilder()
    .setTitle(options.title)
    .setDescription(options.description)
    .setVersion(options.version)
    .addServer(
      options.serverUrl ?? '/',
      options.serverUrl ? 'the gateway' : 'the address this document was read from (the gateway, or the service itself)',
    )
    .addApiKey({ type: 'apiKey', in: 'header', name: 'corelite-token', description: 'The corelite-token JWT' }, 'corelite-token-header')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, 'bearer')
    .addSecurityRequirements('corelite-token-header')
    .addSecurityRequirements('bearer')
    .build();
  return SwaggerModule.createDocument(app, config);
}

/**
 * The API reference pages' own Content-Security-Policy: Swagger UI's scripts and styles from this
 * origin (its components set inline styles), its icons as data: URLs, requests ("Try it out", the
 * document) to this origin only.
 */
export const DOCS_CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "font-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * Swagger UI's start script, reading the document from its URL. @nestjs/swagger's own script
 * inlines the whole document with `String.replace`, which reads `$` before a backtick, `'` or `&`
 * in the document's text as a replacement pattern: a description holding a pattern such as
 * `^[a-z]+$` in backticks breaks the script, and the page stays blank.
 */
export function swaggerUiInitScript(documentUrl: string): string {
  const options = { url: documentUrl, dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null, layout: 'StandaloneLayout' };
  return [
    'window.onload = function () {',
    `  var options = ${JSON.stringify(options)};`,
    '  options.presets = [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset];',
    '  options.plugins = [SwaggerUIBundle.plugins.DownloadUrl];',
    '  window.ui = SwaggerUIBundle(options);',
    '};',
    '',
  ].join('\n');
}

/**
 * Swagger UI at `/<path>`, the OpenAPI document at `/<path>/openapi.json` and `/<path>/openapi.yaml`
 * (the same paths directly and through the gateway); the corelite-token declared three ways. Every
 * answer under `/<path>` carries `DOCS_CONTENT_SECURITY_POLICY`. The start script is this module's
 * (`swaggerUiInitScript`), registered before @nestjs/swagger's so that it is the one that answers.
 */
export async function setupSwagger(app: INestApplication, options: SwaggerOptions): Promise<void> {
  const base = `/${options.path}`;
  app.use(base, (_request: unknown, response: { setHeader(name: string, value: string): void }, next: () => void) => {
    response.setHeader('Content-Security-Policy', DOCS_CONTENT_SECURITY_POLICY);
    next();
  });
  const script = swaggerUiInitScript(`${base}/openapi.json`);
  const lastSegment = base.split('/').pop();
  for (const initPath of [`${base}/swagger-ui-init.js`, `${base}/${lastSegment}/swagger-ui-init.js`]) {
    app.getHttpAdapter().get(initPath, (_request: unknown, response: { type(type: string): { send(body: string): void } }) => {
      response.type('application/javascript').send(script);
    });
  }
  SwaggerModule.setup(options.path, app, await buildOpenApiDocument(app, options), {
    jsonDocumentUrl: `${options.path}/openapi.json`,
    yamlDocumentUrl: `${options.path}/openapi.yaml`,
  });
}
