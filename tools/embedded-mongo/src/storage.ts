import type { Document } from './bson-values';
import type { ResolvedCollation } from './collation';
import { Collection, type ChangeLog } from './collection';
import { commandError } from './errors';
import { releaseDroppedMemory } from './memory-release';

const INVALID_DB_CHARS = /[/\\. "$\0]/;

export function validateDatabaseName(db: string): void {
  if (db.length === 0 || INVALID_DB_CHARS.test(db)) {
    throw commandError('InvalidNamespace', `Invalid database name: '${db}'`);
  }
}

export function validateCollectionName(db: string, name: unknown): string {
  if (typeof name !== 'string') {
    throw commandError('InvalidNamespace', `collection name has invalid type ${typeof name}`);
  }
  if (name.length === 0 || name.includes('\0') || name.includes('$') || name.startsWith('.')) {
    throw commandError('InvalidNamespace', `Invalid collection name: ${db}.${name}`);
  }
  return name;
}

/** A dropped collection: queries still running on it stop, and its memory goes back to the system. */
function release(collection: Collection): void {
  collection.dropped = true;
  const bytes = collection.recordBytes;
  collection.release();
  releaseDroppedMemory(bytes);
}

/**
 * All databases of one server, in memory. A database exists while it has collections. With a
 * change log (the journal of a data directory), every change is also recorded there.
 */
export class Storage {
  private readonly databases = new Map<string, Map<string, Collection>>();
  private changeLog: ChangeLog | null = null;

  /** From now on every change is recorded in `log` (after recovery has rebuilt the data). */
  attachChangeLog(log: ChangeLog | null): void {
    this.changeLog = log;
    for (const collection of this.allCollections()) collection.log = log;
  }

  getCollection(db: string, name: string): Collection | undefined {
    return this.databases.get(db)?.get(name);
  }

  createCollection(db: string, name: string, options: Document = {}, collation: ResolvedCollation | null = null): Collection {
    validateDatabaseName(db);
    validateCollectionName(db, name);
    let collections = this.databases.get(db);
    if (!collections) this.databases.set(db, (collections = new Map()));
    const collection = new Collection(db, name, options, collation, this.changeLog);
    collections.set(name, collection);
    this.changeLog?.createCollection(collection);
    return collection;
  }

  /** The collection, created implicitly (as mongod does on first write or index build). */
  getOrCreateCollection(db: string, name: string): { collection: Collection; created: boolean } {
    const existing = this.getCollection(db, name);
    if (existing) return { collection: existing, created: false };
    return { collection: this.createCollection(db, name), created: true };
  }

  dropCollection(db: string, name: string): boolean {
    const collections = this.databases.get(db);
    const collection = collections?.get(name);
    if (!collections || !collection) return false;
    collections.delete(name);
    release(collection);
    if (collections.size === 0) this.databases.delete(db);
    this.changeLog?.dropCollection(db, name);
    return true;
  }

  dropDatabase(db: string): void {
    const collections = this.databases.get(db);
    if (!collections) return;
    this.databases.delete(db);
    for (const collection of collections.values()) release(collection);
    this.changeLog?.dropDatabase(db);
  }

  /** Every collection of every database (checkpoints). */
  allCollections(): Collection[] {
    return [...this.databases.values()].flatMap((collections) => [...collections.values()]);
  }

  collectionsOf(db: string): Collection[] {
    return [...(this.databases.get(db)?.values() ?? [])];
  }

  databaseNames(): string[] {
    return [...this.databases.keys()];
  }
}
