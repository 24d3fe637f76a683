import * as v8 from 'node:v8';
import * as vm from 'node:vm';

/** Freed bytes (slabs of dropped collections) from which a full collection is worth running. */
const WORTH_COLLECTING = 16 * 1024 * 1024;
const DELAY_MS = 50;

let fullCollection: (() => void) | null | undefined;
let pending = 0;
let timer: NodeJS.Timeout | null = null;

/** V8's `gc()`, made available without the --expose-gc flag; null if V8 refuses. */
function collector(): (() => void) | null {
  if (fullCollection === undefined) {
    try {
      v8.setFlagsFromString('--expose-gc');
      fullCollection = vm.runInNewContext('gc') as () => void;
    } catch {
      fullCollection = null;
    }
  }
  return fullCollection;
}

/**
 * Called when a dropped collection let go of `bytes` of slabs, or a closed cursor of a large result
 * set: once the drops of this moment are done, one full garbage collection frees the slabs
 * (returned to the system: each large slab is a mapping of its own), the index entries and the
 * results. Without it they would wait for the next collection V8 decides on, which an idle server
 * may not run for a long time.
 */
export function releaseDroppedMemory(bytes: number): void {
  pending += bytes;
  if (pending < WORTH_COLLECTING || timer) return;
  timer = setTimeout(() => {
    timer = null;
    pending = 0;
    collector()?.();
  }, DELAY_MS);
  timer.unref();
}
