import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { PROBLEM_CONTENT_TYPE } from './problem';
import { toProblem } from './to-problem';

@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly logger = new Logger('ProblemFilter');

  catch(error: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw error;
    const http = host.switchToHttp();
    const request = http.getRequest<Request & { id?: string }>();
    const response = http.getResponse<Response>();
    const { problem, unexpected, retryAfterSeconds } = toProblem(error);
    if (unexpected) {
      this.logger.error({ err: error, requestId: request.id }, 'unexpected error');
    }
    if (response.headersSent) return;
    if (retryAfterSeconds !== undefined) response.setHeader('Retry-After', String(retryAfterSeconds));
    response
      .status(problem.status)
      .type(PROBLEM_CONTENT_TYPE)
      .send(JSON.stringify({ ...problem, instance: request.originalUrl?.split('?')[0] }));
  }
}
