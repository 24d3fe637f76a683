import { createHash } from 'node:crypto';
import { formatOfName } from '../../uploads/upload-keys';
import type { ListedObject } from '../sources/bucket-source';
import { ExportLayout, ManifestError, parentOf, PlannedGroup, PlanNote } from './export-layout';

const PERIOD_IN_PATH = /(?:^|\/)(?:BILLING_PERIOD=)?(\d{4}-\d{2})(?:\/|$)/;

/** What the files of a group are: their keys and ETags. */
export function fingerprintOf(files: ListedObject[]): string {
  const hash = createHash('sha256');
  for (const file of [...files].sort((a, b) => a.key.localeCompare(b.key))) hash.update(`${file.key}\u0000${file.etag}\u0000`);
  return hash.digest('hex').slice(0, 32);
}

const manifestHint = (key: string) =>
  /-Manifest\.json$/.test(key)
    ? ' (an AWS Data Exports manifest: use the aws-data-exports layout)'
    : /(?:^|\/)manifest\.json$/i.test(key)
      ? ' (an Azure export manifest: use the azure-exports layout)'
      : '';

/**
 * Plain FOCUS files under the prefix. The files of one folder are one delivery: imported together
 * as one upload, and imported again whole when any of them is added, changed or removed (the
 * newer upload replaces what the older held). An object's identity is its key and ETag.
 */
export const focusFiles: ExportLayout = {
  isManifest: () => false,
  parseManifest: () => {
    throw new ManifestError('the focus-files layout has no manifests');
  },

  async plan(objects) {
    const notes: PlanNote[] = [];
    const folders = new Map<string, ListedObject[]>();
    for (const object of objects) {
      if (object.key.endsWith('/') && object.size === 0) continue;
      if (!formatOfName(object.key)) {
        notes.push({ object, outcome: 'rejected', reason: `not a FOCUS file (.csv, .csv.gz, .parquet)${manifestHint(object.key)}` });
        continue;
      }
      const folder = parentOf(object.key);
      folders.set(folder, [...(folders.get(folder) ?? []), object]);
    }
    const groups: PlannedGroup[] = [...folders].map(([folder, files]) => {
      const billingPeriod = PERIOD_IN_PATH.exec(folder)?.[1];
      return { group: folder || '/', ...(billingPeriod ? { billingPeriod } : {}), execution: fingerprintOf(files), files };
    });
    return { groups, notes, manifests: 0 };
  },
};
