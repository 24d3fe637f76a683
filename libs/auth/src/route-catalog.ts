import { Injectable, OnModuleInit, RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { ACCESS_RULE, AccessRule } from './access';

export interface RouteAccess {
  method: string;
  /** As Express matches it: `/api/costasset/v1/budgetController/budgets/:id`. */
  path: string;
  /** `undefined` only for a route that declares no rule (the service then refuses to start). */
  rule: AccessRule | undefined;
  handler: string;
  /** The handler and its controller, to read other metadata of the route. */
  target: (...args: unknown[]) => unknown;
  controller: new (...args: never[]) => object;
}

const asList = (value: unknown): string[] => (Array.isArray(value) ? value : [value ?? '']).map(String);
const joinPath = (...parts: string[]) =>
  `/${parts
    .map((part) => part.replace(/^\/+|\/+$/g, ''))
    .filter(Boolean)
    .join('/')}`;

/**
 * Every HTTP route of the service with its declared access rule, read from the controllers
 * themselves. The service does not start while a route lacks a rule, and the authorization
 * matrix test walks this list, so a new route cannot go unnoticed.
 */
@Injectable()
export class RouteCatalog implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  routes(): RouteAccess[] {
    const routes: RouteAccess[] = [];
    for (const wrapper of this.discovery.getControllers()) {
      const controller = wrapper.metatype as (new (...args: never[]) => object) | undefined;
      if (!controller) continue;
      const prefixes = asList(Reflect.getMetadata(PATH_METADATA, controller));
      for (const name of this.scanner.getAllMethodNames(controller.prototype)) {
        const handler = (controller.prototype as Record<string, unknown>)[name] as (...args: unknown[]) => unknown;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (method === undefined) continue;
        const rule = this.reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_RULE, [handler, controller]);
        for (const prefix of prefixes) {
          for (const path of asList(Reflect.getMetadata(PATH_METADATA, handler))) {
            routes.push({ method: RequestMethod[method], path: joinPath(prefix, path), rule, handler: `${controller.name}.${name}`, target: handler, controller });
          }
        }
      }
    }
    return routes;
  }

  onModuleInit(): void {
    const undeclared = this.routes().filter((route) => route.rule === undefined);
    if (undeclared.length > 0) {
      throw new Error(
        `Every route must declare its access rule (@Public(), @SignedIn(), @AnyMember(), @CostDataManager() or @SystemAdminOnly() from @lib/auth); these do not: ${undeclared
          .map((route) => `${route.method} ${route.path} (${route.handler})`)
          .join(', ')}`,
      );
    }
  }
}
