import { EmbeddedMongo, type EmbeddedMongoOptions } from './server';

export interface EmbeddedMongoHandle {
  port: number;
  uri: string;
  /** Writes a checkpoint of the data directory now (no-op in memory). */
  checkpoint(): Promise<void>;
  close(): Promise<void>;
}

export type { EmbeddedMongoOptions };

/**
 * Starts a MongoDB wire-protocol server (`port: 0` picks a free port). In memory unless
 * `dataDir` is given, in which case the data there is recovered first and kept durable.
 */
export async function startEmbeddedMongo(opts: EmbeddedMongoOptions & { host?: string; port?: number } = {}): Promise<EmbeddedMongoHandle> {
  const host = opts.host ?? '127.0.0.1';
  const server = new EmbeddedMongo(opts);
  const port = await server.listen(host, opts.port ?? 0);
  return { port, uri: `mongodb://${host}:${port}`, checkpoint: () => server.checkpoint(), close: () => server.close() };
}
