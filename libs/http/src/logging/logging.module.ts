import { DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { REDACTED_PATHS } from './redaction';
import { requestIdFor } from './request-id';

export interface LoggingOptions {
  service: string;
  level: string;
  /** This process among the service's instances (INSTANCE_ID), on every line. */
  instance: string;
}

/** Structured JSON logs (pino), one line per request with its id, secrets redacted. */
@Module({})
export class LoggingModule {
  static forRoot(options: LoggingOptions): DynamicModule {
    return {
      module: LoggingModule,
      imports: [
        LoggerModule.forRoot({
          pinoHttp: {
            level: options.level,
            base: { service: options.service, instance: options.instance },
            genReqId: requestIdFor,
            redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' },
            customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'),
            autoLogging: { ignore: (req) => req.url?.startsWith('/health') ?? false },
            serializers: {
              req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url?.split('?')[0] }),
            },
          },
        }),
      ],
      exports: [LoggerModule],
    };
  }
}
