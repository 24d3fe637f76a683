import type { ImportScope } from '../../uploads/schemas/upload.schema';
import { scopeKey } from './import-replacement';

/**
 * The (provider, billing account, billing period) scopes of an import's rows, counted as rows are
 * written. Consecutive rows mostly share a scope: the last one is kept and compared field by field,
 * so that the key is built only when the scope changes. `values()` gives the scopes in the order
 * they were first seen, each `{ providerName, billingAccountId, billingPeriod, rows }`.
 */
export class ImportScopes {
  private readonly scopes = new Map<string, ImportScope>();
  private last: ImportScope | undefined;

  count(providerName: string, billingAccountId: string, billingPeriod: string): void {
    const last = this.last;
    if (last && last.providerName === providerName && last.billingAccountId === billingAccountId && last.billingPeriod === billingPeriod) {
      last.rows++;
      return;
    }
    const key = scopeKey({ providerName, billingAccountId, billingPeriod });
    let scope = this.scopes.get(key);
    if (!scope) {
      scope = { providerName, billingAccountId, billingPeriod, rows: 0 };
      this.scopes.set(key, scope);
    }
    scope.rows++;
    this.last = scope;
  }

  /** Adds the rows of a scope counted elsewhere (another part of the upload). */
  add({ providerName, billingAccountId, billingPeriod, rows }: ImportScope): void {
    const key = scopeKey({ providerName, billingAccountId, billingPeriod });
    const scope = this.scopes.get(key);
    if (scope) scope.rows += rows;
    else this.scopes.set(key, { providerName, billingAccountId, billingPeriod, rows });
  }

  get size(): number {
    return this.scopes.size;
  }

  values(): ImportScope[] {
    return [...this.scopes.values()];
  }
}
