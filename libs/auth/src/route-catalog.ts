import { Injectable, OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { ACCESS_RULE, DeclaredRoute, declaredRoutes } from '@lib/core';
import { AccessRule } from './access';

export interface RouteAccess extends DeclaredRoute {
  /** `undefined` only for a route that declares no rule (the service then refuses to start). */
  rule: AccessRule | undefined;
}

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
    return declaredRoutes(this.discovery, this.scanner).map((route) => ({
      ...route,
      rule: this.reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_RULE, [route.target, route.controller]),
    }));
  }

  onModuleInit(): void {
    const undeclared = this.routes().filter((route) => route.rule === undefined);
    if (undeclared.length > 0) {
      throw new Error(
        'Every route must declare its access rule (@Public(), @SignedIn(), @AnyMember(), @CostDataManager() or @SystemAdminOnly() ' +
          `from @lib/auth); these do not: ${undeclared.map((route) => `${route.method} ${route.path} (${route.handler})`).join(', ')}`,
      );
    }
  }
}
