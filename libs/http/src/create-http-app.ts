import { DynamicModule, INestApplication, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { DeclaredInputsInterceptor, InputLimits, inputMiddleware, parseQuery } from './input';
import { createValidationPipe, ProblemFilter } from './problem';
import { answerClientErrorsWithProblems } from './problem/client-error';
import { SwaggerOptions, setupSwagger } from './swagger';

export interface HttpAppOptions {
  swagger?: SwaggerOptions;
  /** Body size, JSON nesting, array and string lengths, query-string limits (`inputLimitsFrom(env)`). */
  limits: InputLimits;
}

/**
 * Everything both services share at the HTTP edge: structured logger, problem+json errors,
 * input limits before parsing, strict validation, Swagger, graceful shutdown. `main.ts` and the
 * e2e tests build the app through here so that tests run exactly what production runs.
 */
export async function createHttpApp(module: Type<unknown> | DynamicModule, options: HttpAppOptions): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(module, { bufferLogs: true, bodyParser: false });
  app.useLogger(app.get(Logger));
  // the middleware parses the query once and sets it; this only serves anything reading `req.query` before it
  const queryLimits = { ...options.limits.query, maxStringLength: options.limits.json.maxStringLength };
  app.set('query parser', (queryString: string) => parseQuery(queryString, queryLimits));
  app.use(...inputMiddleware(options.limits));
  app.disable('x-powered-by');
  app.useGlobalPipes(createValidationPipe());
  app.useGlobalInterceptors(new DeclaredInputsInterceptor());
  app.useGlobalFilters(new ProblemFilter());
  answerClientErrorsWithProblems(app.getHttpServer());
  app.enableShutdownHooks();
  if (options.swagger) setupSwagger(app, options.swagger);
  return app;
}
