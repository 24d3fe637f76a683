import { pipeline, Readable, Transform } from 'node:stream';
import type { Duplex } from 'node:stream';

/**
 * A stored object's stream through `stages`, as the last stage: an error of the object (a broken
 * connection) or of any stage destroys them all and reaches whoever reads the last one, so a read
 * fails instead of waiting forever on a stream that will not end. (`a.pipe(b)` forwards no error.)
 */
export function piped(source: Readable, ...stages: Duplex[]): Readable {
  // errors reach the reader of the last stage; the callback only keeps pipeline from rethrowing
  return pipeline(source, ...(stages as [Duplex]), () => undefined) as unknown as Readable;
}

/** Passes bytes through, counting them (the unit of an import's progress). */
export function byteCounter(onBytes: (bytes: number) => void): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      onBytes(chunk.length);
      done(null, chunk);
    },
  });
}
