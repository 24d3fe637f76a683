import mongoose, { type Connection } from 'mongoose';
import { startEmbeddedMongo } from '../src';

/** Set MONGODB_URI to run the same specs against a real (standalone) mongod. */
export const externalUri = process.env.MONGODB_URI;

/** Tests of deliberate refusals only make sense against the embedded store itself. */
export const testServerOnly = externalUri ? it.skip : it;

export interface TestDatabase {
  conn: Connection;
  uri: string;
  close(): Promise<void>;
}

export async function openTestDatabase(prefix: string, options: mongoose.ConnectOptions = {}): Promise<TestDatabase> {
  const server = externalUri ? undefined : await startEmbeddedMongo({ port: 0 });
  const uri = externalUri ?? (server as { uri: string }).uri;
  const dbName = `${prefix}_${process.pid}_${Date.now()}`;
  const conn = await mongoose.createConnection(uri, { dbName, serverSelectionTimeoutMS: 5000, ...options }).asPromise();
  return {
    conn,
    uri,
    async close() {
      await conn.dropDatabase().catch(() => undefined);
      await conn.close();
      await server?.close();
    },
  };
}
