/**
 * Short point reads timed while heavy operations run on other connections of the same store:
 * what a service's tiny lookups (authz's `/me`) see while another service aggregates line items.
 */
import { MongoClient, type Collection, type Document } from 'mongodb';
import { summarize } from './stats';

export interface ConcurrencyRun {
  /** Latencies of the point reads (ms). */
  reads: ReturnType<typeof summarize> & { count: number };
  /** Heavy operations completed, and their mean duration (ms). */
  heavy: { count: number; meanMs: number };
}

export interface HeavyOperation {
  name: string;
  run(collection: Collection): Promise<unknown>;
}

const after = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * For `seconds`, `heavyClients` connections loop over the heavy operations while one more
 * connection reads single documents by `_id`, one after the other, timing each.
 */
export async function pointReadsUnderLoad(
  uri: string,
  db: string,
  collectionName: string,
  ids: unknown[],
  heavy: HeavyOperation[],
  heavyClients: number,
  seconds: number,
): Promise<ConcurrencyRun> {
  const loaders = await Promise.all(Array.from({ length: heavyClients }, () => MongoClient.connect(uri, { maxPoolSize: 1 })));
  const reader = await MongoClient.connect(uri, { maxPoolSize: 1 });
  try {
    const deadline = performance.now() + seconds * 1000;
    const heavyDurations: number[] = [];
    const loops = loaders.map(async (client, i) => {
      const collection = client.db(db).collection(collectionName);
      for (let k = i; performance.now() < deadline; k++) {
        const started = performance.now();
        await heavy[k % heavy.length].run(collection);
        heavyDurations.push(performance.now() - started);
      }
    });
    // Let every heavy operation start before the reads are timed.
    await after(200);
    const collection = reader.db(db).collection<Document>(collectionName);
    const samples: number[] = [];
    for (let k = 0; performance.now() < deadline; k++) {
      const started = performance.now();
      const doc = await collection.findOne({ _id: ids[k % ids.length] } as Document);
      samples.push(performance.now() - started);
      if (!doc) throw new Error('a point read found nothing');
    }
    await Promise.all(loops);
    const mean = heavyDurations.reduce((sum, value) => sum + value, 0) / Math.max(1, heavyDurations.length);
    return { reads: { ...summarize(samples), count: samples.length }, heavy: { count: heavyDurations.length, meanMs: mean } };
  } finally {
    await Promise.all([...loaders, reader].map((client) => client.close()));
  }
}
