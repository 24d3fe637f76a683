import { MongoTestServer, type MongoTestServerOptions } from './server';

export interface MongoTestServerHandle {
  port: number;
  uri: string;
  /** Writes a checkpoint of the data directory now (no-op in memory). */
  checkpoint(): Promise<void>;
  close(): Promise<void>;
}

export type { MongoTestServerOptions };

/**
 * Starts a MongoDB wire-protocol server (`port: 0` picks a free port). In memory unless
 * `dataDir` is given, in which case the data there is recovered first and kept durable.
 */
export async function startMongoTestServer(opts: MongoTestServerOptions & { host?: string; port?: number } = {}): Promise<MongoTestServerHandle> {
  const host = opts.host ?? '127.0.0.1';
  const server = new MongoTestServer(opts);
  const port = await server.listen(host, opts.port ?? 0);
  return { port, uri: `mongodb://${host}:${port}`, checkpoint: () => server.checkpoint(), close: () => server.close() };
}
