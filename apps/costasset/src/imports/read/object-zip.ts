import { PassThrough, Readable } from 'node:stream';
import { Client } from 'minio';
import * as yauzl from 'yauzl';

/**
 * Lets yauzl read a zip straight from the object store with HTTP range requests: the central
 * directory and then each entry are fetched as needed, so the archive is never held in memory
 * or on local disk.
 */
class ObjectRangeReader extends yauzl.RandomAccessReader {
  constructor(
    private readonly store: Client,
    private readonly bucket: string,
    private readonly key: string,
  ) {
    super();
  }

  override _readStreamForRange(start: number, end: number): Readable {
    const out = new PassThrough();
    this.store.getPartialObject(this.bucket, this.key, start, end - start).then(
      (source) => {
        source.on('error', (error) => out.destroy(error));
        // a reader that stops early (a CSV header) must not leave the HTTP response hanging
        out.once('close', () => source.destroy());
        source.pipe(out);
      },
      (error: Error) => out.destroy(error),
    );
    return out;
  }
}

export interface ZipArchive {
  entries: yauzl.Entry[];
  open(entry: yauzl.Entry): Promise<Readable>;
  close(): void;
}

export async function openObjectZip(store: Client, bucket: string, key: string, size: number): Promise<ZipArchive> {
  const reader = new ObjectRangeReader(store, bucket, key);
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromRandomAccessReader(
      reader,
      size,
      { lazyEntries: true, autoClose: false, strictFileNames: false, validateEntrySizes: true },
      (error, opened) => (error ? reject(error) : resolve(opened)),
    ),
  );
  const entries = await new Promise<yauzl.Entry[]>((resolve, reject) => {
    const found: yauzl.Entry[] = [];
    zip.on('entry', (entry: yauzl.Entry) => {
      found.push(entry);
      zip.readEntry();
    });
    zip.once('end', () => resolve(found));
    zip.once('error', reject);
    zip.readEntry();
  });
  return {
    entries,
    open: (entry) =>
      new Promise((resolve, reject) => zip.openReadStream(entry, (error, stream) => (error ? reject(error) : resolve(stream)))),
    close: () => zip.close(),
  };
}

/** Reads at most `limit` bytes of an entry (the metadata file, a CSV header) and stops. */
export async function readHead(stream: Readable, limit: number, untilNewline = false): Promise<string> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of stream) {
    const buffer = chunk as Buffer;
    chunks.push(buffer);
    length += buffer.length;
    if (length >= limit || (untilNewline && buffer.includes(10))) break;
  }
  stream.destroy();
  const text = Buffer.concat(chunks).subarray(0, limit).toString('utf8');
  return untilNewline ? text.split(/\r?\n/)[0] : text;
}
