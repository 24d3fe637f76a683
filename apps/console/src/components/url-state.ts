/**
 * Page state kept in the address (shareable, kept by back and forward): the helpers every page uses
 * to read it and to write it back.
 */

/** `path?name=value&…` of the values given (undefined and null left out) that differ from their default, in the order given. */
export function hrefOf(
  path: string,
  values: Record<string, string | number | null | undefined>,
  defaults: Record<string, string> = {},
): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined || value === null) continue;
    if (defaults[name] !== undefined && String(value) === defaults[name]) continue;
    params.set(name, String(value));
  }
  const query = params.toString();
  return query ? `${path}?${query}` : path;
}

/** The item the address names (`?budget=…`), the first one when it names none or one that is gone. */
export function chosen<T>(items: readonly T[] | undefined, id: string | undefined, idOf: (item: T) => string): T | undefined {
  return items?.find((item) => idOf(item) === id) ?? items?.[0];
}

/** A value of the address that must be one of `allowed`, `fallback` otherwise. */
export function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], fallback: T): T {
  return allowed.includes(value as T) ? (value as T) : fallback;
}

/** An integer of the address within [min, max]; `fallback` when it is none (missing, not a number, zero). */
export function intWithin(value: string | undefined, min: number, max: number, fallback: number): number {
  const parsed = Math.trunc(Number(value));
  return parsed ? Math.min(Math.max(parsed, min), max) : fallback;
}
