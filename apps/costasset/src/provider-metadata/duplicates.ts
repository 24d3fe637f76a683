/** Indexes of the items whose key already appeared earlier in the list. */
export function repeatedIndexes<T>(items: T[], keyOf: (item: T) => string): number[] {
  const seen = new Set<string>();
  const repeated: number[] = [];
  items.forEach((item, index) => {
    const key = keyOf(item);
    if (seen.has(key)) repeated.push(index);
    seen.add(key);
  });
  return repeated;
}
