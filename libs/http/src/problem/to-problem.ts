import { HttpException } from '@nestjs/common';
import {
  DEFAULT_RETRY_AFTER_SECONDS,
  duplicateKeyFields,
  FieldProblem,
  ProblemDetails,
  ProblemException,
  Problems,
  problemType,
  statusTitle,
} from '@lib/core';

interface MongoLikeError {
  name?: string;
  code?: number;
  keyValue?: Record<string, unknown>;
  errors?: Record<string, { message?: string }>;
  path?: string;
}

/** mongod's `MaxTimeMSExpired`: the operation ran past its `maxTimeMS` and was stopped. */
const MAX_TIME_MS_EXPIRED = 50;
/** What a client waits before retrying a query that ran out of time: the database is busy, not down. */
const DATABASE_TIMEOUT_RETRY_AFTER_SECONDS = 2;

const MONGO_UNAVAILABLE = new Set([
  'MongoServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
]);

function fromHttpException(error: HttpException): ProblemDetails {
  const status = error.getStatus();
  const response = error.getResponse();
  const message =
    typeof response === 'object' && response && 'message' in response ? (response as { message: unknown }).message : error.message;
  const detail = Array.isArray(message) ? message.join('; ') : String(message);
  const code = statusTitle(status).toUpperCase().replace(/ /g, '_');
  return { type: problemType(code), title: statusTitle(status), status, detail, code };
}

function fromMongo(error: MongoLikeError): ProblemException | undefined {
  const duplicateFields = duplicateKeyFields(error);
  if (duplicateFields) {
    return new ProblemException(409, 'DUPLICATE_KEY', `A record with the same ${duplicateFields.join(', ') || 'key'} already exists`);
  }
  if (error.name === 'CastError') {
    return new ProblemException(400, 'INVALID_IDENTIFIER', `Invalid value for ${error.path ?? 'an identifier'}`);
  }
  if (error.name === 'ValidationError' && error.errors) {
    const errors: FieldProblem[] = Object.entries(error.errors).map(([field, problem]) => ({
      field,
      messages: [problem.message ?? 'invalid'],
    }));
    return new ProblemException(400, 'VALIDATION_FAILED', 'The record is invalid', errors);
  }
  if (error.code === MAX_TIME_MS_EXPIRED) {
    return Problems.unavailable(
      'DATABASE_TIMEOUT',
      'The database did not answer within the time limit of this kind of operation; retry later, or narrow the request',
      DATABASE_TIMEOUT_RETRY_AFTER_SECONDS,
    );
  }
  if (error.name && MONGO_UNAVAILABLE.has(error.name)) {
    return new ProblemException(503, 'DATABASE_UNAVAILABLE', 'The database is unavailable; retry later');
  }
  return undefined;
}

export function fromBodyParser(error: unknown): ProblemException | undefined {
  const type = (error as { type?: unknown } | null)?.type;
  if (type === 'entity.parse.failed') return new ProblemException(400, 'MALFORMED_BODY', 'The request body is not valid JSON');
  if (type === 'entity.too.large') return new ProblemException(413, 'PAYLOAD_TOO_LARGE', 'The request body is too large');
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return new ProblemException(415, 'UNSUPPORTED_ENCODING', 'The request body encoding is not supported');
  }
  return undefined;
}

/**
 * Errors that Express, its router and body-parser raise for a bad request carry a 4xx `status`
 * (http-errors' convention); their message may echo the input, so only the status is kept.
 */
function fromHttpError(error: unknown): ProblemException | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status !== 'number' || status < 400 || status > 499) return undefined;
  if (error instanceof URIError) return new ProblemException(400, 'MALFORMED_PATH', 'The path holds a malformed percent-encoding');
  const code = statusTitle(status).toUpperCase().replace(/ /g, '_');
  return new ProblemException(status, code, 'The request is malformed');
}

/**
 * Turns anything thrown into the problem a caller may see. Unexpected errors become a bare 500:
 * their message may hold queries, paths or secrets, so it only reaches the log.
 */
export function toProblem(error: unknown): { problem: ProblemDetails; unexpected: boolean; retryAfterSeconds?: number } {
  const answer = problemOf(error);
  return answer.problem.status === 503 ? { ...answer, retryAfterSeconds: answer.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS } : answer;
}

function problemOf(error: unknown): { problem: ProblemDetails; unexpected: boolean; retryAfterSeconds?: number } {
  if (error instanceof ProblemException)
    return { problem: error.toProblem(), unexpected: false, retryAfterSeconds: error.retryAfterSeconds };
  if (error instanceof HttpException) return { problem: fromHttpException(error), unexpected: error.getStatus() >= 500 };
  const bodyParser = fromBodyParser(error) ?? fromHttpError(error);
  if (bodyParser) return { problem: bodyParser.toProblem(), unexpected: false };
  const mongo = typeof error === 'object' && error ? fromMongo(error as MongoLikeError) : undefined;
  if (mongo)
    return {
      problem: mongo.toProblem(),
      unexpected: mongo.getStatus() >= 500 && mongo.code !== 'DATABASE_TIMEOUT',
      retryAfterSeconds: mongo.retryAfterSeconds,
    };
  return {
    problem: {
      type: problemType('INTERNAL_ERROR'),
      title: statusTitle(500),
      status: 500,
      detail: 'An unexpected error occurred',
      code: 'INTERNAL_ERROR',
    },
    unexpected: true,
  };
}
