import { calculateObjectSize, Long } from 'bson';
import type { Document } from '../bson-values';
import { resolveCollation } from '../collation';
import type { CommandHandler } from '../command-context';
import { commandError, notSupported } from '../errors';
import { compileFilter } from '../query-engine';
import { collectionArgument, optionalDocument, refuseOptions } from './arguments';

const UNSUPPORTED_CREATE_OPTIONS = [
  'capped',
  'viewOn',
  'pipeline',
  'timeseries',
  'clusteredIndex',
  'validator',
  'validationLevel',
  'validationAction',
  'changeStreamPreAndPostImages',
  'expireAfterSeconds',
  'encryptedFields',
  'storageEngine',
  'indexOptionDefaults',
  'size',
  'max',
];

const create: CommandHandler = (command, { storage, db }) => {
  const name = collectionArgument(command, 'create', db);
  refuseOptions(command, 'create', UNSUPPORTED_CREATE_OPTIONS);
  const collation = resolveCollation(optionalDocument(command, 'collation', 'create'));
  if (storage.getCollection(db, name)) {
    throw commandError('NamespaceExists', `Collection ${db}.${name} already exists.`);
  }
  storage.createCollection(db, name, collation ? { collation: collation.spec } : {}, collation);
  return { ok: 1 };
};

const drop: CommandHandler = (command, { storage, db }) => {
  const name = collectionArgument(command, 'drop', db);
  const collection = storage.getCollection(db, name);
  // Since MongoDB 7.0 dropping a collection that does not exist succeeds.
  if (!collection) return { ok: 1 };
  const nIndexesWas = collection.indexes.length + 1;
  storage.dropCollection(db, name);
  return { nIndexesWas, ns: `${db}.${name}`, ok: 1 };
};

const listCollections: CommandHandler = (command, { storage, db, cursors, op }) => {
  const filter = compileFilter(optionalDocument(command, 'filter', 'listCollections'), { collation: null });
  const nameOnly = command.nameOnly === true;
  const entries = storage
    .collectionsOf(db)
    .map((collection): Document => ({
      name: collection.name,
      type: 'collection',
      options: { ...collection.options },
      info: { readOnly: false, uuid: collection.uuid },
      idIndex: collection.idIndexSpec,
    }))
    .filter((entry) => filter.test(entry))
    .map((entry) => (nameOnly ? { name: entry.name, type: entry.type } : entry));
  const cursorOptions = optionalDocument(command, 'cursor', 'listCollections');
  const batchSize = cursorOptions?.batchSize === undefined ? undefined : Number(cursorOptions.batchSize);
  return cursors.openCursor(op, `${db}.$cmd.listCollections`, entries, { batchSize: batchSize ?? Number.MAX_SAFE_INTEGER });
};

function dataSize(docs: Iterable<Document>): { count: number; size: number } {
  let count = 0;
  let size = 0;
  for (const doc of docs) {
    count++;
    size += calculateObjectSize(doc);
  }
  return { count, size };
}

const collStats: CommandHandler = (command, { storage, db }) => {
  const name = collectionArgument(command, 'collStats', db);
  const collection = storage.getCollection(db, name);
  if (!collection) throw commandError('NamespaceNotFound', `Collection [${db}.${name}] not found.`);
  const { count, size } = dataSize(collection.allDocuments());
  const indexNames = ['_id_', ...collection.indexes.map((index) => index.spec.name)];
  return {
    ns: collection.ns,
    size,
    count,
    avgObjSize: count === 0 ? 0 : Math.floor(size / count),
    storageSize: size,
    nindexes: indexNames.length,
    totalIndexSize: 0,
    indexSizes: Object.fromEntries(indexNames.map((indexName) => [indexName, 0])),
    capped: false,
    ok: 1,
  };
};

const dbStats: CommandHandler = (_command, { storage, db }) => {
  const collections = storage.collectionsOf(db);
  let objects = 0;
  let size = 0;
  let indexes = 0;
  for (const collection of collections) {
    const stats = dataSize(collection.allDocuments());
    objects += stats.count;
    size += stats.size;
    indexes += collection.indexes.length + 1;
  }
  return {
    db,
    collections: collections.length,
    views: 0,
    objects,
    avgObjSize: objects === 0 ? 0 : size / objects,
    dataSize: size,
    storageSize: size,
    indexes,
    indexSize: 0,
    totalSize: size,
    scaleFactor: 1,
    ok: 1,
  };
};

const listDatabases: CommandHandler = (command, { storage }) => {
  const nameOnly = command.nameOnly === true;
  const filter = compileFilter(optionalDocument(command, 'filter', 'listDatabases'), { collation: null });
  const databases = storage
    .databaseNames()
    .map((name): Document => {
      const size = storage.collectionsOf(name).reduce((total, collection) => total + dataSize(collection.allDocuments()).size, 0);
      return nameOnly ? { name } : { name, sizeOnDisk: size, empty: size === 0 };
    })
    .filter((entry) => filter.test(entry));
  if (nameOnly) return { databases, ok: 1 };
  const totalSize = databases.reduce((total, entry) => total + Number(entry.sizeOnDisk), 0);
  return { databases, totalSize, totalSizeMb: Long.fromNumber(Math.floor(totalSize / 1024 / 1024)), ok: 1 };
};

const dropDatabase: CommandHandler = (_command, { storage, db }) => {
  storage.dropDatabase(db);
  return { ok: 1 };
};

const renameCollection: CommandHandler = () => {
  throw notSupported('the renameCollection command');
};

export const collectionCommands: Record<string, CommandHandler> = {
  create,
  drop,
  listCollections,
  collStats,
  dbStats,
  listDatabases,
  dropDatabase,
  renameCollection,
};
