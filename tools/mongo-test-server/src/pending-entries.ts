/** Entries of one run of new keys: parallel arrays, in arrival order. */
interface Run {
  keys: string[];
  ids: string[];
}

/** FNV-1a over the chars of `key` before `end` (the index values, without the `_id` key). */
function prefixHash(key: string, end: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < end; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return hash;
}

const byKey = (a: [string, string], b: [string, string]): number => (a[0] < b[0] ? -1 : 1);

function isSorted(keys: string[]): boolean {
  for (let i = 1; i < keys.length; i++) if (keys[i - 1] > keys[i]) return false;
  return true;
}

function sortRun(run: Run): void {
  if (isSorted(run.keys)) return;
  const pairs = run.keys.map((key, i): [string, string] => [key, run.ids[i]]).sort(byKey);
  pairs.forEach(([key, id], i) => {
    run.keys[i] = key;
    run.ids[i] = id;
  });
}

/** The run without a key equal to the one before it (the later entry wins): bulk loads need strictly ascending keys. */
function withoutRepeats(run: Run): Run {
  if (!run.keys.some((key, i) => i > 0 && key === run.keys[i - 1])) return run;
  const out: Run = { keys: [], ids: [] };
  run.keys.forEach((key, i) => {
    if (out.keys.length > 0 && out.keys[out.keys.length - 1] === key) out.ids[out.ids.length - 1] = run.ids[i];
    else {
      out.keys.push(key);
      out.ids.push(run.ids[i]);
    }
  });
  return out;
}

/**
 * New entries of a non-unique index waiting to be merged into its tree, returned in key order.
 * Entries are grouped by their index values (a hash of the key without its `_id` part): an index
 * has few distinct values per load (a period, a provider) and documents mostly arrive in `_id`
 * order, so each group is usually already sorted and ordering the whole costs about one
 * comparison per entry instead of a full sort. Groups that share a hash, or arrive out of order,
 * are sorted; the result is always checked and sorted whole as a last resort.
 */
export class PendingEntries {
  private runs = new Map<number, Run>();
  size = 0;

  add(key: string, idKey: string): void {
    const hash = prefixHash(key, key.length - idKey.length);
    let run = this.runs.get(hash);
    if (!run) {
      run = { keys: [], ids: [] };
      this.runs.set(hash, run);
    }
    run.keys.push(key);
    run.ids.push(idKey);
    this.size++;
  }

  /** Every entry in key order (keys are unique: each ends with its document's `_id` key); then empty. */
  drain(): Run {
    const runs = [...this.runs.values()];
    this.runs = new Map();
    this.size = 0;
    for (const run of runs) sortRun(run);
    runs.sort((a, b) => (a.keys[0] < b.keys[0] ? -1 : 1));
    const all: Run = { keys: [], ids: [] };
    for (const run of runs) {
      for (let i = 0; i < run.keys.length; i++) {
        all.keys.push(run.keys[i]);
        all.ids.push(run.ids[i]);
      }
    }
    // Groups of different values never interleave unless two shared a hash and a third fell between.
    sortRun(all);
    return withoutRepeats(all);
  }
}
