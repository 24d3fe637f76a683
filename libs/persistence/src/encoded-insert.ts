import { mongo, Types } from 'mongoose';
import type { Connection } from 'mongoose';
import { encodeDocuments } from './bson-documents';

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

/** Absent if a driver version moves it: inserts then go through `insertMany` as before. */
const SEQUENCE = documentSequenceClass();

/** mongod's limits (the embedded store's are the same): documents per write command, bytes per message. */
const MAX_WRITE_BATCH = 100_000;
const MAX_SEQUENCE_BYTES = 48_000_000 - 64 * 1024;
const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

interface InsertReply {
  n?: number;
  writeErrors?: { index: number; code: number; errmsg: string }[];
  writeConcernError?: { code: number; errmsg: string };
}

/**
 * Inserts documents encoded by `encodeDocuments` instead of the driver: the same `insert`
 * commands with the same bytes (an OP_MSG document sequence, as mongod and the embedded store
 * read it), without the driver's per-document sizing and generic serializer. Each document
 * without an `_id` gets one first, as `insertMany` gives it. Resolves to the count inserted, or to
 * `undefined` (nothing sent) when a document holds a value the encoder leaves to the driver, when
 * one is over the server's document size, or when the connection is not open: the caller then
 * uses `insertMany`. Unordered, like the callers' `insertMany`; a write error (or a write concern
 * error) of any command fails the call with a `MongoServerError` carrying the command's
 * `writeErrors`, once its command is done, and later commands are not sent.
 */
export async function insertEncoded(
  model: { db: Connection; collection: { collectionName: string } },
  docs: object[],
  maxTimeMS: number,
): Promise<number | undefined> {
  const db = model.db.db;
  if (!SEQUENCE || !db) return undefined;
  for (const doc of docs as { _id?: unknown }[]) if (doc._id == null) doc._id = new Types.ObjectId();
  const encoded = encodeDocuments(docs);
  if (!encoded || encoded.some((bytes) => bytes.length > MAX_DOCUMENT_BYTES)) return undefined;
  const collection = model.collection.collectionName;
  let inserted = 0;
  for (let start = 0; start < encoded.length;) {
    const sequence = new SEQUENCE('documents');
    let end = start;
    let bytes = 0;
    while (end < encoded.length && end - start < MAX_WRITE_BATCH && (end === start || bytes + encoded[end].length <= MAX_SEQUENCE_BYTES)) {
      sequence.push(docs[end], encoded[end]);
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
