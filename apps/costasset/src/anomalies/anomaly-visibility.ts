import { filterFields } from '../rollups/rollup-fields';
import { SERIES_DIMENSIONS } from './anomaly-series';

/** Matches no anomaly. */
const NOTHING = Object.freeze({ _id: { $in: [] } });
const DIMENSION_FIELD = /^dimensions\.(.+)$/;

/** The series name a line-item field is stored under in an anomaly's `dimensions`. */
const seriesName = (field: string): string => {
  const dimension = DIMENSION_FIELD.exec(field);
  return dimension ? `dimension:${dimension[1]}` : field;
};

/**
 * The anomalies a filter over line items decides on, as a filter over anomalies: when it reads the
 * base series' dimensions only (provider, billing account, service), over the base series; when it
 * reads one virtual dimension only, over that dimension's series; otherwise undefined. The
 * filter is limited to the series that hold the fields it reads (a condition `!=` on a field a
 * series lacks would otherwise match it).
 */
function decided(filter: unknown): Record<string, unknown> | undefined {
  const fields = [...filterFields(filter)];
  if ('_id' in (filter as object)) return undefined;
  const base = fields.every((field) => SERIES_DIMENSIONS.includes(field));
  const dimensions = new Set(fields.filter((field) => DIMENSION_FIELD.test(field)));
  if (!base && !(dimensions.size === 1 && fields.every((field) => dimensions.has(field)))) return undefined;
  const held = base ? SERIES_DIMENSIONS[0] : seriesName([...dimensions][0]);
  return { $and: [{ [`dimensions.${held}`]: { $exists: true } }, onDimensions(filter)] };
}

/** Renames every field a filter reads to its series name inside `dimensions`, leaving operators and operands alone. */
function onDimensions(filter: unknown): unknown {
  if (Array.isArray(filter)) return filter.map(onDimensions);
  if (!filter || typeof filter !== 'object') return filter;
  return Object.fromEntries(
    Object.entries(filter as Record<string, unknown>).map(([key, value]) =>
      key.startsWith('$') ? [key, onDimensions(value)] : [`dimensions.${seriesName(key)}`, value],
    ),
  );
}

/**
 * The anomalies a caller's visibility filter (over line items, from `VisibilityService`) shows.
 * A series is a set of line items sharing its dimensions, so a visibility group that decides on
 * those dimensions alone (provider, billing account, service; or one virtual dimension, for that
 * dimension's series) decides on the series. A group that needs another field (a region, a tag)
 * cannot tell whether a series lies within it and shows none of its anomalies: of a union of
 * groups (`$or`), the branches that decide are kept. `null` (a System Admin) sees every anomaly.
 */
export function anomalyVisibility(visible: Record<string, unknown> | null): Record<string, unknown> {
  if (visible === null) return {};
  const whole = decided(visible);
  if (whole) return whole;
  const keys = Object.keys(visible);
  if (keys.length === 1 && keys[0] === '$or' && Array.isArray(visible.$or)) {
    const kept = (visible.$or as unknown[]).map(decided).filter((branch) => branch !== undefined);
    if (kept.length > 0) return kept.length === 1 ? kept[0] : { $or: kept };
  }
  return NOTHING;
}
