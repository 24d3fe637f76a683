import { deserialize, serialize } from 'bson';
import type { Document } from './bson-values';

export const OpCode = {
  REPLY: 1,
  QUERY: 2004,
  COMPRESSED: 2012,
  MSG: 2013,
} as const;

const HEADER_SIZE = 16;
const MSG_CHECKSUM_PRESENT = 1 << 0;
export const MSG_MORE_TO_COME = 1 << 1;

/** Largest message accepted (mongod's maxMessageSizeBytes). */
export const MAX_MESSAGE_BYTES = 48_000_000;
export const MAX_BSON_OBJECT_BYTES = 16 * 1024 * 1024;

/** Options that keep every BSON type intact: Long, Decimal128, Binary stay their classes. */
const DESERIALIZE_OPTIONS = { promoteLongs: false, promoteValues: true, promoteBuffers: false, bsonRegExp: false } as const;

export interface MessageHeader {
  length: number;
  requestId: number;
  responseTo: number;
  opCode: number;
}

export type IncomingMessage =
  | { kind: 'query'; header: MessageHeader; collection: string; query: Document }
  | { kind: 'msg'; header: MessageHeader; flags: number; command: Document }
  | { kind: 'unsupported'; header: MessageHeader };

export class ProtocolError extends Error {}

/** The received bytes of each document of a document sequence, kept beside the command body. */
const RAW_SEQUENCES = Symbol('rawSequences');

type WithRawSequences = Document & { [RAW_SEQUENCES]?: Map<string, Buffer[]> };

/** The BSON bytes of the documents of sequence `field` as they arrived (OP_MSG kind 1), if any. */
export function rawSequence(command: Document, field: string): Buffer[] | undefined {
  return (command as WithRawSequences)[RAW_SEQUENCES]?.get(field);
}

export function deserializeDocument(bytes: Uint8Array): Document {
  return deserialize(bytes, DESERIALIZE_OPTIONS) as Document;
}

/**
 * Document sequences arrive as raw bytes and are decoded only when a command needs them:
 * `insert` decodes its documents one at a time while it inserts them (in slices, see
 * operation.ts); every other command gets them as arrays on its body, here.
 */
export function materializeSequences(command: Document, except?: string): void {
  const sequences = (command as WithRawSequences)[RAW_SEQUENCES];
  if (!sequences) return;
  for (const [field, raws] of sequences) {
    if (field !== except && command[field] === undefined) command[field] = raws.map(deserializeDocument);
  }
}

function readHeader(buffer: Buffer): MessageHeader {
  return {
    length: buffer.readInt32LE(0),
    requestId: buffer.readInt32LE(4),
    responseTo: buffer.readInt32LE(8),
    opCode: buffer.readInt32LE(12),
  };
}

function readCString(buffer: Buffer, offset: number): { value: string; next: number } {
  const end = buffer.indexOf(0, offset);
  if (end < 0) throw new ProtocolError('unterminated cstring');
  return { value: buffer.toString('utf8', offset, end), next: end + 1 };
}

function readDocument(
  buffer: Buffer,
  offset: number,
  options: typeof DESERIALIZE_OPTIONS = DESERIALIZE_OPTIONS,
): { doc: Document; next: number } {
  const size = buffer.readInt32LE(offset);
  if (size < 5 || offset + size > buffer.length) throw new ProtocolError('invalid BSON document size');
  const doc = deserialize(buffer.subarray(offset, offset + size), options) as Document;
  return { doc, next: offset + size };
}

/** An `insert` body's `documents` are left as the bytes of each document. */
const INSERT_BODY_OPTIONS = { ...DESERIALIZE_OPTIONS, fieldsAsRaw: { documents: true } };
const INSERT = Buffer.from('insert\0', 'latin1');

/** Whether the document at `offset` starts with an `insert` element (the command's name). */
function isInsertBody(buffer: Buffer, offset: number): boolean {
  const name = offset + 5;
  return name + INSERT.length <= buffer.length && buffer.compare(INSERT, 0, INSERT.length, name, name + INSERT.length) === 0;
}

/**
 * The body of an `insert` whose `documents` came inside it (as the driver sends them) keeps
 * them as bytes, beside the body as a document sequence would be: `insert` decodes each one
 * as it inserts it and journals the bytes received.
 */
function readInsertBody(message: Buffer, offset: number, sequences: Array<[string, Buffer[]]>): { doc: Document; next: number } {
  const read = readDocument(message, offset, INSERT_BODY_OPTIONS as typeof DESERIALIZE_OPTIONS);
  const documents: unknown = read.doc.documents;
  if (!Array.isArray(documents)) return read;
  if (documents.every((item) => item instanceof Uint8Array)) {
    delete read.doc.documents;
    sequences.push(['documents', documents.map((item: Uint8Array) => Buffer.from(item.buffer, item.byteOffset, item.byteLength))]);
  } else read.doc.documents = documents.map((item: unknown) => (item instanceof Uint8Array ? deserializeDocument(item) : item));
  return read;
}

/**
 * OP_MSG: a kind-0 section holds the command body; kind-1 sections (document sequences,
 * used by the driver for `documents`, `updates`, `deletes`) become arrays on the body.
 */
function parseMsg(header: MessageHeader, message: Buffer): IncomingMessage {
  const flags = message.readUInt32LE(HEADER_SIZE);
  const end = flags & MSG_CHECKSUM_PRESENT ? message.length - 4 : message.length;
  let offset = HEADER_SIZE + 4;
  let body: Document | undefined;
  const sequences: Array<[string, Buffer[]]> = [];
  while (offset < end) {
    const kind = message.readUInt8(offset);
    offset += 1;
    if (kind === 0) {
      const { doc, next } = isInsertBody(message, offset) ? readInsertBody(message, offset, sequences) : readDocument(message, offset);
      body = doc;
      offset = next;
    } else if (kind === 1) {
      const sectionEnd = offset + message.readInt32LE(offset);
      const { value: identifier, next } = readCString(message, offset + 4);
      const raws: Buffer[] = [];
      let cursor = next;
      while (cursor < sectionEnd) {
        const size = message.readInt32LE(cursor);
        if (size < 5 || cursor + size > sectionEnd) throw new ProtocolError('invalid BSON document size');
        raws.push(message.subarray(cursor, cursor + size));
        cursor += size;
      }
      sequences.push([identifier, raws]);
      offset = sectionEnd;
    } else {
      throw new ProtocolError(`unknown OP_MSG section kind ${kind}`);
    }
  }
  if (!body) throw new ProtocolError('OP_MSG without a body section');
  if (sequences.length > 0) (body as WithRawSequences)[RAW_SEQUENCES] = new Map(sequences);
  return { kind: 'msg', header, flags, command: body };
}

function parseQuery(header: MessageHeader, message: Buffer): IncomingMessage {
  const { value: collection, next } = readCString(message, HEADER_SIZE + 4);
  // Skip numberToSkip and numberToReturn.
  const { doc } = readDocument(message, next + 8);
  const query = doc.$query && typeof doc.$query === 'object' ? (doc.$query as Document) : doc;
  return { kind: 'query', header, collection, query };
}

export function parseMessage(message: Buffer): IncomingMessage {
  const header = readHeader(message);
  if (header.opCode === OpCode.MSG) return parseMsg(header, message);
  if (header.opCode === OpCode.QUERY) return parseQuery(header, message);
  return { kind: 'unsupported', header };
}

function header(length: number, requestId: number, responseTo: number, opCode: number): Buffer {
  const buffer = Buffer.alloc(HEADER_SIZE);
  buffer.writeInt32LE(length, 0);
  buffer.writeInt32LE(requestId, 4);
  buffer.writeInt32LE(responseTo, 8);
  buffer.writeInt32LE(opCode, 12);
  return buffer;
}

/** A reply already encoded as BSON (cursor batches, encoded document by document in slices). */
export class EncodedReply {
  constructor(readonly bytes: Buffer) {}
}

export function buildMsgReply(requestId: number, responseTo: number, reply: Document | EncodedReply): Buffer {
  const body = reply instanceof EncodedReply ? reply.bytes : serialize(reply);
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32LE(0, 0);
  prefix.writeUInt8(0, 4);
  return Buffer.concat([header(HEADER_SIZE + 5 + body.length, requestId, responseTo, OpCode.MSG), prefix, body]);
}

export function buildLegacyReply(requestId: number, responseTo: number, reply: Document): Buffer {
  const body = serialize(reply);
  const fields = Buffer.alloc(20);
  fields.writeInt32LE(8, 0); // AwaitCapable, as mongod sets it
  fields.writeBigInt64LE(0n, 4);
  fields.writeInt32LE(0, 12);
  fields.writeInt32LE(1, 16);
  return Buffer.concat([header(HEADER_SIZE + 20 + body.length, requestId, responseTo, OpCode.REPLY), fields, body]);
}

/** Splits a TCP byte stream into complete wire messages without quadratic re-copying. */
export class MessageReader {
  private chunks: Buffer[] = [];
  private buffered = 0;

  push(chunk: Buffer): Buffer[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const messages: Buffer[] = [];
    for (;;) {
      if (this.buffered < 4) break;
      const head = this.chunks[0].length >= 4 ? this.chunks[0] : this.flatten();
      const length = head.readInt32LE(0);
      if (length < HEADER_SIZE || length > MAX_MESSAGE_BYTES) throw new ProtocolError(`invalid message length ${length}`);
      if (this.buffered < length) break;
      const all = this.flatten();
      messages.push(all.subarray(0, length));
      const rest = all.subarray(length);
      this.chunks = rest.length > 0 ? [rest] : [];
      this.buffered = rest.length;
    }
    return messages;
  }

  private flatten(): Buffer {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks, this.buffered)];
    return this.chunks[0];
  }
}
