import type { Document } from './bson-values';
import type { ResolvedCollation } from './collation';
import { Collection } from './collection';
import { commandError } from './errors';

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

/** All databases of one server, in memory only. A database exists while it has collections. */
export class Storage {
  private readonly databases = new Map<string, Map<string, Collection>>();

  getCollection(db: string, name: string): Collection | undefined {
    return this.databases.get(db)?.get(name);
  }

  createCollection(db: string, name: string, options: Document = {}, collation: ResolvedCollation | null = null): Collection {
    validateDatabaseName(db);
    validateCollectionName(db, name);
    let collections = this.databases.get(db);
    if (!collections) this.databases.set(db, (collections = new Map()));
    const collection = new Collection(db, name, options, collation);
    collections.set(name, collection);
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
    if (!collections?.delete(name)) return false;
    if (collections.size === 0) this.databases.delete(db);
    return true;
  }

  dropDatabase(db: string): void {
    this.databases.delete(db);
  }

  collectionsOf(db: string): Collection[] {
    return [...(this.databases.get(db)?.values() ?? [])];
  }

  databaseNames(): string[] {
    return [...this.databases.keys()];
  }
}
