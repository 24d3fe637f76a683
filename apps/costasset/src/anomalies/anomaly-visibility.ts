import { filterFields } from '../rollups/rollup-fields';
import { SERIES_DIMENSIONS } from './anomaly-series';

/** Matches no anomaly. */
const NOTHING = Object.freeze({ _id: { $in: [] } });

const decidable = (filter: unknown) => [...filterFields(filter)].every((field) => SERIES_DIMENSIONS.includes(field));

/** Renames every field a filter reads to the same field inside `dimensions`, leaving operators and operands alone. */
function onDimensions(filter: unknown): unknown {
  if (Array.isArray(filter)) return filter.map(onDimensions);
  if (!filter || typeof filter !== 'object') return filter;
  return Object.fromEntries(
    Object.entries(filter as Record<string, unknown>).map(([key, value]) =>
      key.startsWith('$') ? [key, onDimensions(value)] : [`dimensions.${key}`, value],
    ),
  );
}

/**
 * The anomalies a caller's visibility filter (over line items, from `VisibilityService`) shows.
 * A series is a set of line items sharing its dimensions, so a visibility group that decides on
 * those dimensions alone (provider, billing account, service) decides on the series: the filter
 * runs over the anomaly's `dimensions`. A group that needs another field (a region, a tag) cannot
 * tell whether the series lies within it and shows none of its anomalies: of a union of groups
 * (`$or`), the branches that decide are kept. `null` (a System Admin) sees every anomaly.
 */
export function anomalyVisibility(visible: Record<string, unknown> | null): Record<string, unknown> {
  if (visible === null) return {};
  if (decidable(visible) && !('_id' in visible)) return onDimensions(visible) as Record<string, unknown>;
  const keys = Object.keys(visible);
  if (keys.length === 1 && keys[0] === '$or' && Array.isArray(visible.$or)) {
    const kept = (visible.$or as unknown[]).filter(decidable);
    if (kept.length > 0) return { $or: kept.map(onDimensions) };
  }
  return NOTHING;
}
