import { DynamicModule, INestApplication, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { Metrics } from '@lib/metrics';
import { DeclaredInputsGuard, InputLimits, inputMiddleware, parseQuery } from './input';
import { createValidationPipe, ProblemFilter } from './problem';
import { answerClientErrorsWithProblems } from './problem/client-error';
import { SwaggerOptions, setupSwagger } from './swagger';
import { AdmissionControl, MetricsListenerOptions, metricsPortFilter, trafficMiddleware } from './traffic';

export interface HttpAppOptions {
  swagger?: SwaggerOptions;
  /** Body size, JSON nesting, array and string lengths, query-string limits (`inputLimitsFrom(env)`). */
  limits: InputLimits;
}

/**
 * Everything both services share at the HTTP edge: admission control and HTTP metrics first (a
 * refused request costs nothing), structured logger, problem+json errors, input limits before
 * parsing, strict validation, Swagger, graceful shutdown. `main.ts` and the
 * e2e tests build the app through here so that tests run exactly what production runs.
 */
export async function createHttpApp(module: Type<unknown> | DynamicModule, options: HttpAppOptions): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(module, { bufferLogs: true, bodyParser: false });
  app.useLogger(app.get(Logger));
  // Nest would hold every line until listen; a line held past here (a job's, from onApplicationBootstrap)
  // is written later, outside its trace context, so the lines of module set-up are written now
  app.flushLogs();
  // the middleware parses the query once and sets it; this only serves anything reading `req.query` before it
  const queryLimits = { ...options.limits.query, maxStringLength: options.limits.json.maxStringLength };
  app.set('query parser', (queryString: string) => parseQuery(queryString, queryLimits));
  app.use(trafficMiddleware(app.get(AdmissionControl), app.get(Metrics)));
  app.use(metricsPortFilter(app.get(MetricsListenerOptions).port));
  app.use(...inputMiddleware(options.limits));
  app.disable('x-powered-by');
  app.useGlobalPipes(createValidationPipe());
  // after the APP_GUARD of authentication, which Nest registered while creating the app
  app.useGlobalGuards(new DeclaredInputsGuard());
  app.useGlobalFilters(new ProblemFilter());
  answerClientErrorsWithProblems(app.getHttpServer());
  app.enableShutdownHooks();
  if (options.swagger) await setupSwagger(app, options.swagger);
  return app;
}
