import type { FilterQuery, Model, UpdateQuery } from 'mongoose';
import { TenantOwned, TenantRepository } from '@lib/persistence';

type IndexKey = Record<string, 1>;

const NAMESPACE_NOT_FOUND = 26;
const INDEX_NOT_FOUND = 27;
const hasCode = (error: unknown, code: number) => (error as { code?: number } | null)?.code === code;

/**
 * A repository of records keyed by user, whose user is (tenant, IdP, subject). Records stored
 * before the IdP was part of the key carry no `idpId`, and their collection still holds the
 * unique index without it; these methods serve the start-up migration (IdpKeyMigration).
 */
export abstract class IdpKeyedRepository<T extends TenantOwned & { idpId: string }> extends TenantRepository<T> {
  protected constructor(
    model: Model<T>,
    private readonly legacyUniqueKey: IndexKey,
  ) {
    super(model);
  }

  /** The name of the unique index of before the IdP was part of the key, while it exists. */
  async legacyIndex(): Promise<string | undefined> {
    let indexes: { name: string; key: IndexKey }[];
    try {
      indexes = (await this.model.collection.listIndexes().toArray()) as typeof indexes;
    } catch (error) {
      if (hasCode(error, NAMESPACE_NOT_FOUND)) return undefined;
      throw error;
    }
    return indexes.find((index) => JSON.stringify(index.key) === JSON.stringify(this.legacyUniqueKey))?.name;
  }

  /** Gives every record without an IdP this one, tenant by tenant (each update on an index led by the tenant). */
  async assignMissingIdp(idpId: string): Promise<number> {
    let assigned = 0;
    for (const tenantId of (await this.model.distinct('tenantId').exec()) as string[]) {
      assigned += await this.updateMany(tenantId, { idpId: { $exists: false } } as FilterQuery<T>, { $set: { idpId } } as UpdateQuery<T>);
    }
    return assigned;
  }

  /** Another instance may have dropped it meanwhile. */
  async dropIndex(name: string): Promise<void> {
    try {
      await this.model.collection.dropIndex(name);
    } catch (error) {
      if (!hasCode(error, INDEX_NOT_FOUND)) throw error;
    }
  }
}
