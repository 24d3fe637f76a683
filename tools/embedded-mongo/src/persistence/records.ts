import { serialize } from 'bson';
import * as fs from 'node:fs';
import * as zlib from 'node:zlib';
import type { Document } from '../bson-values';
import { decodeStoredDocument } from '../document-decoder';

/**
 * Journal and checkpoint files are sequences of records:
 *   u32 payload length | u32 CRC-32 of the payload | payload
 * and a payload is: u8 operation | u16 length + database name | u16 length + collection name | BSON body.
 * A record is whole only if all its bytes are there and its checksum matches.
 */
export const Op = {
  put: 1,
  remove: 2,
  createCollection: 3,
  dropCollection: 4,
  dropDatabase: 5,
  createIndex: 6,
  dropIndex: 7,
  checkpointEnd: 8,
} as const;

export type OpCode = (typeof Op)[keyof typeof Op];

export interface JournalRecord {
  op: OpCode;
  db: string;
  collection: string;
  body: Document;
  /** Bytes the record takes in its file (frame included). */
  bytes: number;
}

const FRAME_BYTES = 8;
/** A record larger than this is damage, not data (documents are at most 16 MiB). */
const MAX_PAYLOAD_BYTES = 64 * 1024 * 1024;

/** Buffers kept between uses up to this size; a larger one (a batch of big documents) is let go. */
const KEPT_BUFFER_BYTES = 16 * 1024 * 1024;

/**
 * Encodes records one after another into one reusable buffer: a record costs a copy of its body
 * and no allocation (the journal's pending records, a checkpoint's slice).
 */
export class RecordWriter {
  private buffer = Buffer.allocUnsafe(64 * 1024);
  private position = 0;

  get length(): number {
    return this.position;
  }

  /** Appends one record; returns the bytes it takes. */
  add(op: OpCode, db: string, collection: string, body: Uint8Array): number {
    const start = this.position;
    this.room(FRAME_BYTES + 5 + 3 * (db.length + collection.length) + body.length);
    const buffer = this.buffer;
    let offset = start + FRAME_BYTES;
    buffer[offset++] = op;
    offset = this.name(db, offset);
    offset = this.name(collection, offset);
    buffer.set(body, offset);
    offset += body.length;
    const payload = buffer.subarray(start + FRAME_BYTES, offset);
    buffer.writeUInt32LE(payload.length, start);
    buffer.writeUInt32LE(zlib.crc32(payload), start + 4);
    this.position = offset;
    return offset - start;
  }

  addDocument(op: OpCode, db: string, collection: string, body: Document): number {
    return this.add(op, db, collection, serialize(body));
  }

  /** The records written since the last `reset`, valid until the next change. */
  bytes(): Buffer {
    return this.buffer.subarray(0, this.position);
  }

  reset(): void {
    this.position = 0;
    if (this.buffer.length > KEPT_BUFFER_BYTES) this.buffer = Buffer.allocUnsafe(64 * 1024);
  }

  /** u16 length, then the name's UTF-8 bytes. */
  private name(name: string, offset: number): number {
    const written = this.buffer.write(name, offset + 2, 'utf8');
    this.buffer.writeUInt16LE(written, offset);
    return offset + 2 + written;
  }

  private room(bytes: number): void {
    if (this.position + bytes <= this.buffer.length) return;
    const next = Buffer.allocUnsafe(Math.max(2 * this.buffer.length, this.position + bytes));
    this.buffer.copy(next, 0, 0, this.position);
    this.buffer = next;
  }
}

function decodePayload(payload: Buffer): JournalRecord {
  let offset = 0;
  const op = payload.readUInt8(offset++) as OpCode;
  const dbLength = payload.readUInt16LE(offset);
  offset += 2;
  const db = payload.toString('utf8', offset, offset + dbLength);
  offset += dbLength;
  const collectionLength = payload.readUInt16LE(offset);
  offset += 2;
  const collection = payload.toString('utf8', offset, offset + collectionLength);
  offset += collectionLength;
  const body = decodeStoredDocument(payload.subarray(offset));
  return { op, db, collection, body, bytes: FRAME_BYTES + payload.length };
}

export interface ReadResult {
  records: number;
  /** Offset just after the last whole record. */
  validBytes: number;
  totalBytes: number;
  /** Why reading stopped before the end of the file, if it did. */
  damage: string | null;
}

const CHUNK_BYTES = 16 * 1024 * 1024;

/**
 * Reads a record file from the start, handing each whole record to `onRecord`, and stops at
 * the first record that is cut short or fails its checksum (a torn or corrupt tail).
 */
export function readRecords(file: string, onRecord: (record: JournalRecord) => void): ReadResult {
  const fd = fs.openSync(file, 'r');
  try {
    const totalBytes = fs.fstatSync(fd).size;
    let buffer = Buffer.alloc(0);
    let bufferStart = 0; // file offset of buffer[0]
    let position = 0; // file offset of the next record
    let records = 0;
    const ensure = (bytes: number): boolean => {
      const available = bufferStart + buffer.length - position;
      if (available >= bytes) return true;
      const fileLeft = totalBytes - (bufferStart + buffer.length);
      if (available + fileLeft < bytes) return false;
      const keep = buffer.subarray(position - bufferStart);
      const chunk = Buffer.allocUnsafe(Math.min(fileLeft, Math.max(CHUNK_BYTES, bytes - available)));
      const read = fs.readSync(fd, chunk, 0, chunk.length, bufferStart + buffer.length);
      buffer = Buffer.concat([keep, chunk.subarray(0, read)]);
      bufferStart = position;
      return bufferStart + buffer.length - position >= bytes;
    };
    while (position < totalBytes) {
      if (!ensure(FRAME_BYTES)) return { records, validBytes: position, totalBytes, damage: 'a record header is cut short' };
      const at = position - bufferStart;
      const length = buffer.readUInt32LE(at);
      const checksum = buffer.readUInt32LE(at + 4);
      if (length < 5 || length > MAX_PAYLOAD_BYTES)
        return { records, validBytes: position, totalBytes, damage: `a record has an impossible length (${length})` };
      if (!ensure(FRAME_BYTES + length)) return { records, validBytes: position, totalBytes, damage: 'the last record is cut short' };
      const start = position - bufferStart + FRAME_BYTES;
      const payload = buffer.subarray(start, start + length);
      if (zlib.crc32(payload) !== checksum) return { records, validBytes: position, totalBytes, damage: 'a record fails its checksum' };
      let record: JournalRecord;
      try {
        record = decodePayload(payload);
      } catch {
        return { records, validBytes: position, totalBytes, damage: 'a record does not decode' };
      }
      onRecord(record);
      records++;
      position += FRAME_BYTES + length;
    }
    return { records, validBytes: position, totalBytes, damage: null };
  } finally {
    fs.closeSync(fd);
  }
}

/** Makes a rename or a new file in `dir` durable. */
export function syncDirectory(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
