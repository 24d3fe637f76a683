import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { declaredRoutes } from '@lib/core';
import { ALWAYS_SERVED } from './always-served';
import { HEAVY_ROUTE } from './heavy-route';

export class AdmissionOptions {
  /** Requests served at once by this instance; the next one is refused (`HTTP_MAX_IN_FLIGHT`). */
  maxInFlight!: number;
  /** Of those, requests to `@HeavyRoute()` routes (`HTTP_MAX_HEAVY_IN_FLIGHT`). */
  maxHeavyInFlight!: number;
}

/** How admission control treats a request: never counted, counted, or counted against both bounds. */
export type AdmissionClass = 'always' | 'normal' | 'heavy';

/** The bound a refused request met: every request's (`HTTP_MAX_IN_FLIGHT`) or heavy routes' (`HTTP_MAX_HEAVY_IN_FLIGHT`). */
export type AdmissionBound = 'all' | 'heavy';

/**
 * A route pattern (`/v1/reportModels/:id/execution`) as a regular expression over request paths,
 * case-insensitive as Express matches routes (its default, which Nest keeps).
 */
function patternOf(path: string): RegExp {
  const escaped = path
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${escaped}/?$`, 'i');
}

/**
 * Admission control of one instance: at most `maxInFlight` requests are served at once, of which
 * at most `maxHeavyInFlight` to heavy routes, and the next one is refused at once (503
 * `SERVER_BUSY` with `Retry-After`) before anything parses it or touches the database. Routes
 * marked `@AlwaysServed()` (health, metrics, the key set, token refresh) are never counted nor
 * refused. A refusal costs microseconds; queueing behind a saturated database would cost every
 * caller its time-out.
 */
@Injectable()
export class AdmissionControl implements OnApplicationBootstrap {
  private inFlight = 0;
  private heavyInFlight = 0;
  private readonly alwaysServed = new Set<string>();
  private readonly heavy = new Map<string, RegExp[]>();

  constructor(
    readonly options: AdmissionOptions,
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  onApplicationBootstrap(): void {
    for (const route of declaredRoutes(this.discovery, this.scanner)) {
      const targets = [route.target, route.controller];
      if (this.reflector.getAllAndOverride<boolean>(ALWAYS_SERVED, targets)) this.alwaysServed.add(`${route.method} ${route.path}`);
      if (this.reflector.getAllAndOverride<boolean>(HEAVY_ROUTE, targets)) {
        this.heavy.set(route.method, [...(this.heavy.get(route.method) ?? []), patternOf(route.path)]);
      }
    }
  }

  /** How the request counts (always-served routes take no path parameter: exact paths). */
  classify(method: string, path: string): AdmissionClass {
    if (this.alwaysServed.has(`${method} ${path.length > 1 ? path.replace(/\/+$/, '') : path}`)) return 'always';
    // Express answers HEAD with the GET route's handler: the same work
    return this.heavy.get(method === 'HEAD' ? 'GET' : method)?.some((pattern) => pattern.test(path)) ? 'heavy' : 'normal';
  }

  /** Takes a slot (and a heavy one for a heavy route) and answers null, or names the bound that refuses the request. */
  tryEnter(admission: Exclude<AdmissionClass, 'always'>): AdmissionBound | null {
    if (this.inFlight >= this.options.maxInFlight) return 'all';
    if (admission === 'heavy') {
      if (this.heavyInFlight >= this.options.maxHeavyInFlight) return 'heavy';
      this.heavyInFlight += 1;
    }
    this.inFlight += 1;
    return null;
  }

  leave(admission: Exclude<AdmissionClass, 'always'>): void {
    this.inFlight -= 1;
    if (admission === 'heavy') this.heavyInFlight -= 1;
  }

  /** Every slot, or every heavy slot, is taken: the next request, or the next heavy one, would be refused (readiness reports it). */
  saturated(): boolean {
    return this.inFlight >= this.options.maxInFlight || this.heavyInFlight >= this.options.maxHeavyInFlight;
  }

  get current(): number {
    return this.inFlight;
  }
}
