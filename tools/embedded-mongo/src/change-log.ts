import type { Document } from './bson-values';
import type { Collection } from './collection';
import type { IndexSpec } from './index-state';

/** Receives every change to the stored data, in order (the journal of a durable server). */
export interface ChangeLog {
  createCollection(collection: Collection): void;
  dropCollection(db: string, name: string): void;
  dropDatabase(db: string): void;
  createIndex(collection: Collection, spec: IndexSpec): void;
  dropIndex(collection: Collection, name: string): void;
  /** An inserted or replaced document (the whole new version). */
  put(collection: Collection, doc: Document, raw?: Uint8Array): void;
  remove(collection: Collection, id: unknown): void;
}
