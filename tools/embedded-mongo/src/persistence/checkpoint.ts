import { serialize } from 'bson';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Document } from '../bson-values';
import type { RecordSnapshot } from '../record-store';
import type { Storage } from '../storage';
import { Op, RecordWriter, syncDirectory } from './records';

export const checkpointName = (sequence: number): string => `checkpoint-${String(sequence).padStart(8, '0')}.ckpt`;
export const CHECKPOINT_PATTERN = /^checkpoint-(\d{8})\.ckpt$/;

interface CollectionSnapshot {
  db: string;
  name: string;
  options: Document;
  indexSpecs: Document[];
  docs: RecordSnapshot;
}

/**
 * A consistent picture of every collection at one instant: the locations of the stored records,
 * which later writes never overwrite (see RecordStore.snapshot); no document is copied.
 */
export function takeSnapshot(storage: Storage): CollectionSnapshot[] {
  return storage.allCollections().map((collection) => ({
    db: collection.db,
    name: collection.name,
    options: collection.options,
    indexSpecs: collection.indexes.map((index) => index.spec),
    docs: collection.snapshot(),
  }));
}

const DOCUMENTS_PER_SLICE = 2_000;

/** Serialises a snapshot to `checkpoint-<sequence>.ckpt`, a slice at a time so requests keep being served. */
export async function writeCheckpoint(
  dir: string,
  sequence: number,
  snapshot: CollectionSnapshot[],
  cancelled: () => boolean,
): Promise<{ file: string; bytes: number; documents: number; documentBytes: number } | null> {
  const file = path.join(dir, checkpointName(sequence));
  const temporary = `${file}.tmp`;
  const handle = await fs.promises.open(temporary, 'w');
  let bytes = 0;
  let documents = 0;
  let documentBytes = 0;
  const records = new RecordWriter();
  // Writes what `records` holds, then empties it.
  const write = async (): Promise<void> => {
    const data = records.bytes();
    await handle.write(data, 0, data.length);
    bytes += data.length;
    records.reset();
  };
  try {
    for (const collection of snapshot) {
      records.addDocument(Op.createCollection, collection.db, collection.name, { options: collection.options });
      for (const spec of collection.indexSpecs) records.addDocument(Op.createIndex, collection.db, collection.name, spec);
      await write();
      for (let start = 0; start < collection.docs.length; start += DOCUMENTS_PER_SLICE) {
        if (cancelled()) return null;
        const end = Math.min(collection.docs.length, start + DOCUMENTS_PER_SLICE);
        for (let i = start; i < end; i++) {
          documentBytes += records.add(Op.put, collection.db, collection.name, serialize(collection.docs.document(i)));
        }
        await write();
        documents += end - start;
      }
    }
    records.addDocument(Op.checkpointEnd, '', '', { documents });
    await write();
    await handle.datasync();
  } finally {
    await handle.close();
    if (cancelled()) fs.rmSync(temporary, { force: true });
  }
  if (cancelled()) return null;
  fs.renameSync(temporary, file);
  syncDirectory(dir);
  return { file, bytes, documents, documentBytes };
}
