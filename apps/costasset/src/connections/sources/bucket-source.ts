import type { Readable } from 'node:stream';

/** An object of a bucket or container, as its listing shows it. */
export interface ListedObject {
  key: string;
  /** The store's version tag of the content (quotes removed): a changed object has another. */
  etag: string;
  size: number;
  lastModified: Date;
}

/**
 * Read access to the bucket or container a connection names, whatever the store. Faults are
 * thrown as the client gives them; the sync tells a permission or a missing bucket (`SourceRefusal`)
 * from an unreachable store (retried).
 */
export interface BucketSource {
  /** What the connection reads, for messages (`s3://bucket/prefix`, `https://account…/container/prefix`). */
  readonly location: string;
  /** Every object whose key starts with `prefix`, in key order. */
  list(prefix: string): AsyncIterable<ListedObject>;
  /** The object's content, streamed. */
  read(key: string): Promise<Readable>;
}

/**
 * The store answered, and said no: wrong credentials, no permission, no such bucket. Retrying
 * cannot help, so a sync meeting it fails at once and a test reports it as the problem.
 */
export class SourceRefusal extends Error {
  override readonly name = 'SourceRefusal';
}

/** Reads a small object whole (a manifest), refusing one over `maxBytes`. */
export async function readSmall(source: BucketSource, key: string, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of await source.read(key)) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw new SourceRefusal(`${key} is over ${maxBytes} bytes; a manifest is never that large`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export const unquoted = (etag: string | undefined): string => (etag ?? '').replace(/^(W\/)?"|"$/g, '');
