import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { recordProblem } from '@lib/tracing';
import { PROBLEM_CONTENT_TYPE } from '@lib/core';
import { toProblem } from './to-problem';

/** Every error a request raised, answered as problem+json and recorded on the request's span with its `code`. */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly logger = new Logger('ProblemFilter');

  catch(error: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw error;
    const http = host.switchToHttp();
    const request = http.getRequest<Request & { id?: string }>();
    const response = http.getResponse<Response>();
    const { problem, unexpected, retryAfterSeconds } = toProblem(error);
    recordProblem(problem.status, problem.code);
    if (unexpected) {
      this.logger.error({ err: error, requestId: request.id }, 'unexpected error');
    }
    if (response.headersSent) return;
    if (retryAfterSeconds !== undefined) response.setHeader('Retry-After', String(retryAfterSeconds));
    response
      .status(problem.status)
      .type(PROBLEM_CONTENT_TYPE)
      // the request id (as in the logs and `x-request-id`) lets a caller's report be matched to its trace and log lines
      .send(
        JSON.stringify({
          ...problem,
          instance: request.originalUrl?.split('?')[0],
          ...(request.id ? { requestId: String(request.id) } : {}),
        }),
      );
  }
}
