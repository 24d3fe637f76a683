import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';

export interface SwaggerOptions {
  title: string;
  description: string;
  version: string;
}

export const TOKEN_SECURITY = ['corelite-token-header', 'corelite-token-cookie', 'bearer'] as const;

/** Swagger UI at /docs, the OpenAPI JSON at /docs-json; the corelite-token declared three ways. */
export function setupSwagger(app: INestApplication, options: SwaggerOptions): void {
  const config = new DocumentBuilder()
    .setTitle(options.title)
    .setDescription(options.description)
    .setVersion(options.version)
    .addApiKey({ type: 'apiKey', in: 'header', name: 'corelite-token', description: 'The corelite-token JWT' }, 'corelite-token-header')
    .addApiKey({ type: 'apiKey', in: 'cookie', name: 'corelite-token', description: 'The corelite-token JWT as a cookie' }, 'corelite-token-cookie')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, 'bearer')
    .addSecurityRequirements('corelite-token-header')
    .addSecurityRequirements('corelite-token-cookie')
    .addSecurityRequirements('bearer')
    .build();
  const document = SwaggerModule.createDocument(app, config);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs-json', yamlDocumentUrl: 'docs-yaml' });
}
