import { DynamicModule, INestApplication, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { json, NextFunction, Request, Response, urlencoded } from 'express';
import { Logger } from 'nestjs-pino';
import { fromBodyParser, ProblemFilter, createValidationPipe } from './problem';
import { SwaggerOptions, setupSwagger } from './swagger';

export interface HttpAppOptions {
  swagger?: SwaggerOptions;
  bodyLimitBytes: number;
}

/** Body-parser failures become problems here; Nest would otherwise echo the parser's message. */
function bodyParserProblems(error: unknown, _req: Request, _res: Response, next: NextFunction): void {
  next(fromBodyParser(error) ?? error);
}

/**
 * Everything both services share at the HTTP edge: structured logger, problem+json errors,
 * strict validation, body limits, Swagger, graceful shutdown. `main.ts` and the e2e tests
 * build the app through here so that tests run exactly what production runs.
 */
export async function createHttpApp(module: Type<unknown> | DynamicModule, options: HttpAppOptions): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(module, { bufferLogs: true, bodyParser: false });
  app.useLogger(app.get(Logger));
  app.use(json({ limit: options.bodyLimitBytes }), urlencoded({ limit: options.bodyLimitBytes, extended: false }), bodyParserProblems);
  app.set('query parser', 'extended');
  app.disable('x-powered-by');
  app.useGlobalPipes(createValidationPipe());
  app.useGlobalFilters(new ProblemFilter());
  app.enableShutdownHooks();
  if (options.swagger) setupSwagger(app, options.swagger);
  return app;
}
