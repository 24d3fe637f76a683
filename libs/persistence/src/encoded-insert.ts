import { mongo } from 'mongoose';
import type { Connection, mongo as Mongo } from 'mongoose';
import type { InsertBatch } from './insert-batch';

/** The driver's OP_MSG document sequence (internal to it: what its own client bulk write sends). */
interface DocumentSequence {
  push(document: object, bytes: Uint8Array): number;
}
type DocumentSequenceClass = new (field: string) => DocumentSequence;

function documentSequenceClass(): DocumentSequenceClass | undefined {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const commands = require('mongodb/lib/cmap/commands') as { DocumentSequence?: unknown };
    return typeof commands.DocumentSequence === 'function' ? (commands.DocumentSequence as DocumentSequenceClass) : undefined;
  } catch {
    return undefined;
  }
}

/** Absent if a driver version moves it: encoded documents then go through `insertMany`, decoded. */
const SEQUENCE = documentSequenceClass();
/**
 * What the sequence keeps of each document beside its bytes: only command monitoring reads it, and
 * our monitoring times commands by name. Keeping the objects would keep them alive until the reply.
 */
const ELIDED = Object.freeze({});

/** mongod's limits (the embedded store's are the same): documents per write command, bytes per message. */
const MAX_WRITE_BATCH = 100_000;
const MAX_SEQUENCE_BYTES = 48_000_000 - 64 * 1024;

interface InsertReply {
  n?: number;
  writeErrors?: { index: number; code: number; errmsg: string }[];
  writeConcernError?: { code: number; errmsg: string };
}

type BulkModel = { db: Connection; collection: Mongo.Collection & { collectionName: string } };

/**
 * Inserts a batch: its encoded documents by the same `insert` commands the driver sends, with the
 * same bytes (an OP_MSG document sequence, as mongod and the embedded store read it), without the
 * driver's per-document sizing and generic serializer; the documents kept as objects by
 * `insertMany`. Unordered, like `insertMany`. A write error (or a write concern error) of any
 * command fails the call with a `MongoServerError` carrying the command's `writeErrors`, once its
 * command is done, and later commands are not sent. Resolves to the count inserted.
 */
export async function insertBatch(model: BulkModel, batch: InsertBatch, options: { maxTimeMS?: number }): Promise<number> {
  let inserted = 0;
  const db = model.db.db;
  const views = batch.encoded.views();
  const objects = SEQUENCE && db ? batch.objects : [...batch.objects, ...views.map((bytes) => mongo.BSON.deserialize(bytes))];
  if (SEQUENCE && db) inserted += await sendEncoded(db, model.collection.collectionName, views, options.maxTimeMS);
  if (objects.length) inserted += (await model.collection.insertMany(objects, { ordered: false, ...options })).insertedCount;
  return inserted;
}

async function sendEncoded(db: Mongo.Db, collection: string, encoded: Buffer[], maxTimeMS: number | undefined): Promise<number> {
  let inserted = 0;
  for (let start = 0; start < encoded.length; ) {
    const sequence = new (SEQUENCE as DocumentSequenceClass)('documents');
    let end = start;
    let bytes = 0;
    while (end < encoded.length && end - start < MAX_WRITE_BATCH && (end === start || bytes + encoded[end].length <= MAX_SEQUENCE_BYTES)) {
      sequence.push(ELIDED, encoded[end]);
      bytes += encoded[end].length;
      end++;
    }
    const reply = (await db.command({ insert: collection, documents: sequence, ordered: false, maxTimeMS })) as InsertReply;
    inserted += reply.n ?? 0;
    const failed = reply.writeErrors?.[0] ?? reply.writeConcernError;
    if (failed) {
      const count = reply.writeErrors?.length ?? 0;
      throw new mongo.MongoServerError({
        ...reply,
        code: failed.code,
        errmsg: `insert into ${collection}: ${count ? `${count} document(s) not inserted` : 'write concern error'}: ${failed.errmsg}`,
      });
    }
    start = end;
  }
  return inserted;
}
