import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Metrics } from '@lib/metrics';
import { recordProblem, traceServerRequest } from '@lib/tracing';
import { requestIdFor } from '../logging/request-id';
import { PROBLEM_CONTENT_TYPE, ProblemException, RequestAbandoned, runInRequestContext } from '@lib/core';
import type { AdmissionControl } from './admission';

/** Seconds a refused client should wait before trying again. */
export const BUSY_RETRY_AFTER_SECONDS = 1;

const busy = new ProblemException(
  503,
  'SERVER_BUSY',
  'This instance is serving as many requests as it is allowed to; retry after the time in Retry-After',
).toProblem();

/** The route pattern Express matched (`/api/costasset/v1/jobs/:jobId`), so that labels stay few. */
function routeOf(req: Request): string {
  const route = (req as Request & { route?: { path?: unknown } }).route;
  return typeof route?.path === 'string' ? `${req.baseUrl}${route.path}` : 'unmatched';
}

/**
 * The first middleware of every request: admission control (refused at once beyond the bound, see
 * `AdmissionControl`), the request's abort signal (aborted when the client goes away, so that its
 * database reads stop), the HTTP metrics (duration by route and status, requests in flight) and
 * the request's server span when tracing is on.
 */
export function trafficMiddleware(admission: AdmissionControl, metrics: Metrics): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const end = metrics.httpDuration.startTimer({ method: req.method });
    const admissionClass = admission.classify(req.method, req.path);
    const refusedBy = admissionClass === 'always' ? null : admission.tryEnter(admissionClass);
    if (refusedBy) {
      metrics.httpAdmissionRefusals.inc({ bound: refusedBy });
      res.statusCode = 503;
      res.setHeader('Content-Type', PROBLEM_CONTENT_TYPE);
      res.setHeader('Retry-After', String(BUSY_RETRY_AFTER_SECONDS));
      recordProblem(busy.status, busy.code);
      res.end(JSON.stringify({ ...busy, instance: req.path, requestId: requestIdFor(req, res) }));
      end({ route: 'refused', status: '503' });
      return;
    }
    if (admissionClass !== 'always') metrics.httpInFlight.inc();
    const controller = new AbortController();
    res.once('close', () => {
      if (admissionClass !== 'always') {
        admission.leave(admissionClass);
        metrics.httpInFlight.dec();
      }
      const abandoned = !res.writableFinished;
      if (abandoned) {
        controller.abort(new RequestAbandoned());
        metrics.httpAbandoned.inc();
      }
      // 499: nginx's "client closed request"
      end({ route: routeOf(req), status: abandoned ? '499' : String(res.statusCode) });
    });
    runInRequestContext({ signal: controller.signal }, () => traceServerRequest(req, res, next));
  };
}

/**
 * With `METRICS_PORT` set, the service's port does not answer `/metrics` and the metrics port
 * answers nothing else (both 404, as for an unknown path).
 */
export function metricsPortFilter(metricsPort: number | undefined): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (metricsPort === undefined || (req.socket.localPort === metricsPort) === (req.path === '/metrics')) return next();
    next(new ProblemException(404, 'NOT_FOUND', `Cannot ${req.method} ${req.path}`));
  };
}
