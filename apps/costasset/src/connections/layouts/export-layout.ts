import type { ListedObject } from '../sources/bucket-source';

/** A set of data files to import as one upload: one execution of one export's billing period, or one folder. */
export interface PlannedGroup {
  /** What a newer delivery replaces: `<export>|<billing period>`, or the folder. */
  group: string;
  billingPeriod?: string;
  /** The export's execution (run) id, or for plain folders a digest of the files. */
  execution: string;
  files: ListedObject[];
}

/** A listed object the sync will not import, and why. */
export interface PlanNote {
  object: ListedObject;
  outcome: 'skipped' | 'rejected';
  reason: string;
  billingPeriod?: string;
  execution?: string;
}

export interface SyncPlan {
  groups: PlannedGroup[];
  notes: PlanNote[];
  /** Manifests the layout read or took from what was read before. */
  manifests: number;
}

/** What the sync needs of a manifest, whatever the cloud. */
export interface ParsedManifest {
  execution: string;
  billingPeriod: string;
  /** Keys of the data files within the bucket or container. */
  dataKeys: string[];
  deliveredAt?: Date;
  /** Why the export cannot be imported (not FOCUS), when it cannot. */
  refusal?: string;
}

/** Reads a manifest (once per key and ETag: an unchanged manifest is taken from what was read before). */
export type ManifestReader = (object: ListedObject) => Promise<ParsedManifest>;

export interface ExportLayout {
  /** Whether the object is one of this layout's manifests. */
  isManifest(key: string): boolean;
  /** Parses a manifest's text; throws `ManifestError` when it is not one. */
  parseManifest(key: string, text: string): ParsedManifest;
  plan(objects: ListedObject[], manifests: ManifestReader): Promise<SyncPlan>;
}

/** A manifest that does not parse or does not say what the layout needs. */
export class ManifestError extends Error {
  override readonly name = 'ManifestError';
}

/** `2026-10` from an ISO date or a `YYYYMMDD` one. */
export function periodOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const iso = /^(\d{4})-(\d{2})/.exec(value);
  if (iso) return `${iso[1]}-${iso[2]}`;
  const compact = /^(\d{4})(\d{2})\d{2}/.exec(value);
  return compact ? `${compact[1]}-${compact[2]}` : undefined;
}

export const parentOf = (key: string): string => key.slice(0, Math.max(0, key.lastIndexOf('/')));
