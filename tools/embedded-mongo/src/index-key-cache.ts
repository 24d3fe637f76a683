type Node = Map<unknown, Node | string>;

/** Keys remembered per index; the cache starts over once it holds this many. */
const MAX_KEYS = 100_000;

/** Values a key can be remembered by: compared by value in a Map, as their encodings are. */
export function isCacheableValue(value: unknown): boolean {
  return value === null || value === undefined || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/**
 * The keys of a non-unique index by the tuple of their field values, when every value is a
 * string, number, boolean or null (or missing). A document whose values were seen before gets
 * the very same key string instead of encoding them again: no new string to allocate, and the
 * index finds its group through a string whose hash V8 has already computed.
 */
export class IndexKeyCache {
  private root: Node = new Map();
  private keys = 0;

  get(values: unknown[]): string | undefined {
    let node: Node | string | undefined = this.root;
    for (let i = 0; i < values.length && node !== undefined; i++) node = (node as Node).get(values[i]);
    return node as string | undefined;
  }

  set(values: unknown[], key: string): void {
    if (this.keys >= MAX_KEYS) {
      this.root = new Map();
      this.keys = 0;
    }
    let node = this.root;
    for (let i = 0; i < values.length - 1; i++) {
      let next = node.get(values[i]) as Node | undefined;
      if (!next) node.set(values[i], (next = new Map()));
      node = next;
    }
    node.set(values[values.length - 1], key);
    this.keys++;
  }
}
