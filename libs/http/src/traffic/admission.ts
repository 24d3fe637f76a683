import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { RouteCatalog } from '@lib/auth/route-catalog';
import { ALWAYS_SERVED } from './always-served';

export class AdmissionOptions {
  /** Requests served at once by this instance; the next one is refused (`HTTP_MAX_IN_FLIGHT`). */
  maxInFlight!: number;
}

/**
 * Admission control of one instance: at most `maxInFlight` requests are served at once, and the
 * next one is refused at once (503 `SERVER_BUSY` with `Retry-After`) before anything parses it or
 * touches the database. Routes marked `@AlwaysServed()` (health, metrics, the key set, token
 * refresh) are never counted nor refused. A refusal costs microseconds; queueing behind a
 * saturated database would cost every caller its time-out.
 */
@Injectable()
export class AdmissionControl implements OnApplicationBootstrap {
  private inFlight = 0;
  private readonly alwaysServed = new Set<string>();

  constructor(
    readonly options: AdmissionOptions,
    private readonly catalog: RouteCatalog,
    private readonly reflector: Reflector,
  ) {}

  onApplicationBootstrap(): void {
    for (const route of this.catalog.routes()) {
      if (this.reflector.getAllAndOverride<boolean>(ALWAYS_SERVED, [route.target, route.controller])) {
        this.alwaysServed.add(`${route.method} ${route.path}`);
      }
    }
  }

  /** Whether the route is served whatever the load (exact paths: such routes take no path parameter). */
  isAlwaysServed(method: string, path: string): boolean {
    return this.alwaysServed.has(`${method} ${path.length > 1 ? path.replace(/\/+$/, '') : path}`);
  }

  /** Takes a slot, or answers false when every slot is taken. */
  tryEnter(): boolean {
    if (this.inFlight >= this.options.maxInFlight) return false;
    this.inFlight += 1;
    return true;
  }

  leave(): void {
    this.inFlight -= 1;
  }

  /** Every slot is taken: the next request would be refused (readiness reports it). */
  saturated(): boolean {
    return this.inFlight >= this.options.maxInFlight;
  }

  get current(): number {
    return this.inFlight;
  }
}
