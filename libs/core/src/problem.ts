import { HttpException, HttpStatus } from '@nestjs/common';

export interface FieldProblem {
  field: string;
  messages: string[];
}

/** RFC 9457 problem details, with a stable upper-case `code` clients can switch on. */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: FieldProblem[];
  instance?: string;
  [extension: string]: unknown;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';
const PROBLEM_TYPE_BASE = 'https://corelite.dev/problems/';

export function problemType(code: string): string {
  return PROBLEM_TYPE_BASE + code.toLowerCase().replace(/_/g, '-');
}

export function statusTitle(status: number): string {
  const name = HttpStatus[status];
  if (!name) return 'Error';
  return name
    .toLowerCase()
    .split('_')
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join(' ');
}

/** Seconds a client should wait before retrying a 503, unless the problem says otherwise (`Retry-After`). */
export const DEFAULT_RETRY_AFTER_SECONDS = 5;

/** The one exception the product throws for anything a caller should see. */
export class ProblemException extends HttpException {
  /** `Retry-After` of a 503 (every 503 carries one; `DEFAULT_RETRY_AFTER_SECONDS` unless set). */
  retryAfterSeconds?: number;

  constructor(
    status: number,
    readonly code: string,
    detail: string,
    readonly errors?: FieldProblem[],
    readonly extensions: Record<string, unknown> = {},
  ) {
    super(detail, status);
  }

  toProblem(): ProblemDetails {
    return {
      type: problemType(this.code),
      title: statusTitle(this.getStatus()),
      status: this.getStatus(),
      detail: this.message,
      code: this.code,
      ...(this.errors ? { errors: this.errors } : {}),
      ...this.extensions,
    };
  }
}

export const Problems = {
  badRequest: (code: string, detail: string, errors?: FieldProblem[]) => new ProblemException(400, code, detail, errors),
  unauthorized: (code: string, detail: string) => new ProblemException(401, code, detail),
  forbidden: (code: string, detail: string) => new ProblemException(403, code, detail),
  notFound: (code: string, detail: string) => new ProblemException(404, code, detail),
  conflict: (code: string, detail: string) => new ProblemException(409, code, detail),
  payloadTooLarge: (code: string, detail: string) => new ProblemException(413, code, detail),
  unavailable: (code: string, detail: string, retryAfterSeconds?: number) =>
    Object.assign(new ProblemException(503, code, detail), { retryAfterSeconds }),
};
