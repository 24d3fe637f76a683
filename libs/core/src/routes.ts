import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import type { DiscoveryService, MetadataScanner } from '@nestjs/core';

/** One HTTP route of a service, as its controllers declare it. */
export interface DeclaredRoute {
  method: string;
  /** As Express matches it: `/api/costasset/v1/budgetController/budgets/:id`. */
  path: string;
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
 * Every HTTP route of the application, read from its controllers (a route per prefix and path
 * of a handler). auth's RouteCatalog adds each route's access rule; http's admission control
 * reads which routes are always served or heavy.
 */
export function declaredRoutes(discovery: DiscoveryService, scanner: MetadataScanner): DeclaredRoute[] {
  const routes: DeclaredRoute[] = [];
  for (const wrapper of discovery.getControllers()) {
    const controller = wrapper.metatype as (new (...args: never[]) => object) | undefined;
    if (!controller) continue;
    const prefixes = asList(Reflect.getMetadata(PATH_METADATA, controller));
    for (const name of scanner.getAllMethodNames(controller.prototype)) {
      const handler = (controller.prototype as Record<string, unknown>)[name] as (...args: unknown[]) => unknown;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (method === undefined) continue;
      for (const prefix of prefixes) {
        for (const path of asList(Reflect.getMetadata(PATH_METADATA, handler))) {
          routes.push({
            method: RequestMethod[method],
            path: joinPath(prefix, path),
            handler: `${controller.name}.${name}`,
            target: handler,
            controller,
          });
        }
      }
    }
  }
  return routes;
}
