import { Injectable } from '@nestjs/common';
import type { Principal } from '@lib/auth';

/**
 * The seam for visibility and `expr` filtering: the expression library will provide a scope
 * that compiles the caller's visibility groups (and an `expr` query parameter) into a MongoDB
 * filter ANDed with the field filters. Until then every caller of a tenant sees its whole data.
 */
export abstract class LineItemScope {
  abstract filterFor(principal: Principal): Promise<Record<string, unknown>>;
}

@Injectable()
export class TenantWideScope extends LineItemScope {
  filterFor(): Promise<Record<string, unknown>> {
    return Promise.resolve({});
  }
}
