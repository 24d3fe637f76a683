import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import type { Request } from 'express';
import { ProblemException } from '@lib/core';

/** What a handler reads of the request, from its parameter decorators (`@Body()`, `@Query()`, `@Req()` …). */
function declaredInputs(context: ExecutionContext): Set<number> {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, context.getClass(), context.getHandler().name) ?? {}) as Record<string, unknown>;
  return new Set(Object.keys(args).map((key) => Number(key.split(':')[0])));
}

const hasContent = (body: unknown) =>
  body !== undefined && body !== null && (typeof body !== 'object' || Object.keys(body as object).length > 0);

export const sendsBytes = (req: Request) =>
  Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;

/**
 * Unknown input is refused, not ignored (the ValidationPipe does it for declared DTOs; this does it
 * for what a handler does not declare at all): query parameters on an operation that reads none,
 * a body on an operation that takes none (`{}` is tolerated), and a body the JSON parser
 * could not read on an operation that takes one (415). Handlers that read the raw request
 * (`@Req()`) decide for themselves. A guard rather than an interceptor: it only looks before the
 * handler, and an interceptor costs every request a wrapping of the handler (Nest binds each to
 * its async context, ~0.1 ms of CPU on Node 20). Registered after the authentication guard, so an
 * unauthenticated caller learns nothing about a route's inputs.
 */
@Injectable()
export class DeclaredInputsGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const inputs = declaredInputs(context);
    if (inputs.has(RouteParamtypes.REQUEST)) return true;
    const req = context.switchToHttp().getRequest<Request>();
    const queryNames = Object.keys(req.query ?? {});
    if (!inputs.has(RouteParamtypes.QUERY) && queryNames.length > 0) {
      throw new ProblemException(
        400,
        'VALIDATION_FAILED',
        'This operation takes no query parameters',
        queryNames.slice(0, 20).map((field) => ({ field, messages: [`property ${field} should not exist`] })),
      );
    }
    if (!inputs.has(RouteParamtypes.BODY)) {
      if (hasContent(req.body) || (req.body === undefined && sendsBytes(req))) {
        throw new ProblemException(400, 'UNEXPECTED_BODY', 'This operation takes no request body');
      }
    } else if (req.body === undefined && sendsBytes(req)) {
      throw new ProblemException(415, 'UNSUPPORTED_MEDIA_TYPE', 'The request body must be application/json');
    }
    return true;
  }
}
