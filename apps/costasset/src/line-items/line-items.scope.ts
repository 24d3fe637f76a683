import { Injectable } from '@nestjs/common';
import type { Principal } from '@lib/auth';
import { VisibilityService } from '../resource-groups/visibility.service';

/** What a caller may see of the tenant's line items and assets. */
export abstract class LineItemScope {
  abstract filterFor(principal: Principal): Promise<Record<string, unknown>>;
}

/** The caller's visibility groups (docs/decisions.md#tenancy-and-visibility): a System Admin sees everything. */
@Injectable()
export class VisibilityScope extends LineItemScope {
  constructor(private readonly visibility: VisibilityService) {
    super();
  }

  async filterFor(principal: Principal): Promise<Record<string, unknown>> {
    return (await this.visibility.filterFor(principal)) ?? {};
  }
}
