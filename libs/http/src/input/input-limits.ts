import { json, NextFunction, Request, RequestHandler, Response } from 'express';
import type { CommonEnvironment } from '@lib/config';
import { ProblemException } from '@lib/core';
import { fromBodyParser } from '../problem/to-problem';
import { sendsBytes } from './declared-inputs.guard';
import { checkParsed, JsonLimits, nestsDeeperThan, tooDeep } from './json-limits';
import { parseQuery, QueryLimits } from './query-parser';

/** Every limit applied to a request before any validator or handler sees it. */
export interface InputLimits {
  bodyBytes: number;
  json: JsonLimits;
  query: Omit<QueryLimits, 'maxStringLength'>;
}

export function inputLimitsFrom(env: CommonEnvironment): InputLimits {
  return {
    bodyBytes: env.HTTP_BODY_LIMIT_BYTES,
    json: {
      maxDepth: env.HTTP_JSON_MAX_DEPTH,
      maxArrayLength: env.HTTP_JSON_MAX_ARRAY_LENGTH,
      maxStringLength: env.HTTP_JSON_MAX_STRING_LENGTH,
    },
    query: {
      maxDepth: env.HTTP_QUERY_MAX_DEPTH,
      maxArrayLength: env.HTTP_QUERY_MAX_ARRAY_LENGTH,
      maxParameters: env.HTTP_QUERY_MAX_PARAMETERS,
    },
  };
}

/** Parses the query string once, within its limits, and leaves it on the request as `req.query`. */
function queryParser(limits: QueryLimits): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    const start = req.url.indexOf('?');
    try {
      const query = start < 0 ? {} : parseQuery(req.url.slice(start + 1), limits);
      Object.defineProperty(req, 'query', { value: query, writable: true, enumerable: true, configurable: true });
      next();
    } catch (error) {
      next(error);
    }
  };
}

/**
 * Every route that takes a body takes JSON. A form (`application/x-www-form-urlencoded`,
 * `multipart/form-data`) or `text/plain` body is what a cross-site HTML form can send without a
 * CORS preflight, so any other type is refused before anything reads it.
 */
function jsonBodiesOnly(req: Request, _res: Response, next: NextFunction): void {
  const json = req.is('application/json');
  next(
    sendsBytes(req) && !json ? new ProblemException(415, 'UNSUPPORTED_MEDIA_TYPE', 'The request body must be application/json') : undefined,
  );
}

/**
 * JSON bodies in UTF-8 (RFC 8259) whose nesting is checked on the raw bytes, before JSON.parse
 * builds the value and long before Nest's ValidationPipe recurses through it.
 */
function jsonParser(limits: InputLimits): RequestHandler {
  return json({
    limit: limits.bodyBytes,
    verify: (_req, _res, raw, encoding) => {
      if (encoding.toLowerCase() !== 'utf-8') {
        throw new ProblemException(415, 'UNSUPPORTED_ENCODING', 'JSON bodies must be UTF-8');
      }
      if (nestsDeeperThan(raw, limits.json.maxDepth)) throw tooDeep('request body', limits.json.maxDepth);
    },
  });
}

/** Arrays, strings and keys of a parsed body, checked before validation. */
function parsedBodyCheck(limits: JsonLimits): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => next(req.body === undefined ? undefined : checkParsed(req.body, limits));
}

/** Body-parser failures become problems here; Nest would otherwise echo the parser's message. */
function bodyParserProblems(error: unknown, _req: Request, _res: Response, next: NextFunction): void {
  next(fromBodyParser(error) ?? error);
}

/** The Express middleware that applies `limits`, in order: query, content type, JSON body, parsed-body checks. */
export function inputMiddleware(limits: InputLimits): Array<RequestHandler | typeof bodyParserProblems> {
  const queryLimits = { ...limits.query, maxStringLength: limits.json.maxStringLength };
  return [queryParser(queryLimits), jsonBodiesOnly, jsonParser(limits), bodyParserProblems, parsedBodyCheck(limits.json)];
}
