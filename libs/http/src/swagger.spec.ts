import { Script } from 'node:vm';
import { Controller, Get, INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ApiOperation, SwaggerModule } from '@nestjs/swagger';
import request from 'supertest';
import { DOCS_CONTENT_SECURITY_POLICY, setupSwagger } from './swagger';

/** A description as costasset's provider codes have it: a pattern ending in `$` and a backtick. */
const DESCRIPTION = 'Lower-case provider code: `^[a-z0-9][a-z0-9_-]{0,63}$`';

@Controller('providers')
class ProvidersController {
  @Get()
  @ApiOperation({ summary: 'Providers', description: DESCRIPTION })
  list(): string[] {
    return [];
  }
}

@Module({ controllers: [ProvidersController] })
class DocsModule {}

async function appWith(setup: (app: INestApplication) => void | Promise<void>): Promise<INestApplication> {
  const app = await NestFactory.create(DocsModule, { logger: false });
  await setup(app);
  await app.init();
  return app;
}

const parses = (script: string) => {
  try {
    new Script(script);
    return true;
  } catch {
    return false;
  }
};

describe('the API reference page', () => {
  let app: INestApplication;
  afterEach(() => app?.close());

  it("breaks with @nestjs/swagger's own start script, which inlines the document with String.replace", async () => {
    app = await appWith((nest) =>
      SwaggerModule.setup('docs/x', nest, SwaggerModule.createDocument(nest, { openapi: '3.0.0', info: { title: 'x', version: '1' } })),
    );
    const script = (await request(app.getHttpServer()).get('/docs/x/swagger-ui-init.js').expect(200)).text;
    // when this starts to parse, @nestjs/swagger has fixed it and setupSwagger's own script may go
    expect(parses(script)).toBe(false);
  });

  it('starts Swagger UI from the document URL, under its own Content-Security-Policy', async () => {
    app = await appWith((nest) => setupSwagger(nest, { title: 'x', description: DESCRIPTION, version: '1', path: 'docs/x' }));
    const server = app.getHttpServer();
    for (const path of ['/docs/x/swagger-ui-init.js', '/docs/x/x/swagger-ui-init.js']) {
      const script = (
        await request(server)
          .get(path)
          .expect(200)
          .expect('content-type', /javascript/)
      ).text;
      expect(parses(script)).toBe(true);
      expect(script).toContain('"url":"/docs/x/openapi.json"');
      expect(script).not.toContain('Lower-case provider code');
    }
    const page = await request(server).get('/docs/x').expect(200);
    expect(page.headers['content-security-policy']).toBe(DOCS_CONTENT_SECURITY_POLICY);
    expect((await request(server).get('/docs/x/openapi.json').expect(200)).body.paths['/providers'].get.description).toBe(DESCRIPTION);
  });
});
