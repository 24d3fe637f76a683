import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectConnection } from '@nestjs/mongoose';
import type { Connection, Model } from 'mongoose';

type IndexKeys = Record<string, unknown>;

const sameKeys = (a: IndexKeys, b: IndexKeys) => JSON.stringify(a) === JSON.stringify(b);
const describeKeys = (keys: IndexKeys) => Object.keys(keys).join(' + ');
const NAMESPACE_NOT_FOUND = 26;

/** The unique indexes a model's schema declares. */
function declaredUniqueIndexes(model: Model<unknown>): IndexKeys[] {
  return model.schema
    .indexes()
    .filter(([, options]) => options?.unique === true)
    .map(([keys]) => keys as IndexKeys);
}

async function existingIndexes(model: Model<unknown>): Promise<{ key: IndexKeys; unique?: boolean }[]> {
  try {
    return (await model.collection.listIndexes().toArray()) as { key: IndexKeys; unique?: boolean }[];
  } catch (error) {
    if ((error as { code?: number }).code === NAMESPACE_NOT_FOUND) return [];
    throw error;
  }
}

/**
 * Uniqueness rules (one internal configuration per tenant, unique names and codes, one threshold
 * event per budget and period …) live in unique indexes. At start-up this waits for every
 * model's index build and then checks that each unique index the schemas declare exists and is
 * unique; if one does not (duplicates already stored, a conflicting index of the same name, no
 * index built at all), the service stops with a message naming the collection and the index,
 * instead of running without the rule. Other index failures are logged.
 */
@Injectable()
export class UniqueIndexCheck implements OnApplicationBootstrap {
  private readonly logger = new Logger('UniqueIndexCheck');

  constructor(@InjectConnection() private readonly connection: Connection) {}

  async onApplicationBootstrap(): Promise<void> {
    const problems: string[] = [];
    for (const model of Object.values(this.connection.models) as Model<unknown>[]) {
      const buildError = await model.init().then(
        () => undefined,
        (error: unknown) => error as Error,
      );
      const declared = declaredUniqueIndexes(model);
      const existing = declared.length > 0 ? await existingIndexes(model) : [];
      const missing = declared.filter((keys) => !existing.some((index) => index.unique === true && sameKeys(index.key, keys)));
      for (const keys of missing) {
        const cause = buildError ? `: ${buildError.message.replace(/ dup key: .*$/, '')}` : '';
        problems.push(`collection "${model.collection.name}" has no unique index on ${describeKeys(keys)}${cause}`);
      }
      if (buildError && missing.length === 0)
        this.logger.error({ err: buildError, collection: model.collection.name }, 'an index could not be built');
    }
    if (problems.length > 0) {
      throw new Error(
        `Unique indexes could not be built, so the rules they enforce would not hold; the service does not start. ` +
          `Remove or merge the records that break them (or the conflicting index), then start again. ${problems.join('; ')}`,
      );
    }
  }
}
