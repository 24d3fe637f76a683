import { DynamicModule, INestApplication, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { ProblemFilter, createValidationPipe } from './problem';
import { SwaggerOptions, setupSwagger } from './swagger';

export interface HttpAppOptions {
  swagger?: SwaggerOptions;
  bodyLimitBytes: number;
}

/**
 * Everything both services share at the HTTP edge: structured logger, problem+json errors,
 * strict validation, body limits, Swagger, graceful shutdown. `main.ts` and the e2e tests
 * build the app through here so that tests run exactly what production runs.
 */
export async function createHttpApp(module: Type<unknown> | DynamicModule, options: HttpAppOptions): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(module, { bufferLogs: true, bodyParser: false });
  app.useLogger(app.get(Logger));
  app.useBodyParser('json', { limit: options.bodyLimitBytes });
  app.useBodyParser('urlencoded', { limit: options.bodyLimitBytes, extended: false });
  app.set('query parser', 'extended');
  app.disable('x-powered-by');
  app.useGlobalPipes(createValidationPipe());
  app.useGlobalFilters(new ProblemFilter());
  app.enableShutdownHooks();
  if (options.swagger) setupSwagger(app, options.swagger);
  return app;
}
