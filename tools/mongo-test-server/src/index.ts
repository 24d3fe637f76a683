import { MongoTestServer } from './server';

export interface MongoTestServerHandle {
  port: number;
  uri: string;
  close(): Promise<void>;
}

/** Starts an in-memory MongoDB wire-protocol test server (`port: 0` picks a free port). */
export async function startMongoTestServer(opts: { host?: string; port?: number } = {}): Promise<MongoTestServerHandle> {
  const host = opts.host ?? '127.0.0.1';
  const server = new MongoTestServer();
  const port = await server.listen(host, opts.port ?? 0);
  return { port, uri: `mongodb://${host}:${port}`, close: () => server.close() };
}
