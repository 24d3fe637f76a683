import { formatOfName } from '../../uploads/upload-keys';
import type { ListedObject } from '../sources/bucket-source';
import type { ManifestReader, ParsedManifest, PlannedGroup, PlanNote, SyncPlan } from './export-layout';

interface Delivery {
  manifest: ListedObject;
  parsed: ParsedManifest;
  group: string;
}

function decoded(key: string): string | undefined {
  try {
    return decodeURIComponent(key);
  } catch {
    return undefined;
  }
}

/** Later deliveries last: by the manifest's time, then the listing's, then the key. */
function byDelivery(a: Delivery, b: Delivery): number {
  const time = (delivery: Delivery) => delivery.parsed.deliveredAt?.getTime() ?? delivery.manifest.lastModified.getTime();
  return (
    time(a) - time(b) ||
    a.manifest.lastModified.getTime() - b.manifest.lastModified.getTime() ||
    a.manifest.key.localeCompare(b.manifest.key)
  );
}

/**
 * The plan of a layout whose deliveries are named by manifests (AWS Data Exports, Azure exports):
 * the latest delivery of each export's billing period is imported; the data files of older ones
 * are skipped (never summed with it); a data file no manifest names is skipped; a file that is
 * neither a manifest nor FOCUS data is rejected. A delivery whose manifest names a missing file is
 * not imported (it is still being written, or was cut short).
 */
export async function planFromManifests(
  objects: ListedObject[],
  options: {
    layoutName: string;
    isManifest: (key: string) => boolean;
    /** The export a manifest belongs to (its folder above the period's), for grouping. */
    exportOf: (manifestKey: string) => string;
    read: ManifestReader;
    /** Where a named file is when its name is not a key of the bucket: for manifests that name their files by run folder. */
    besideManifest?: (name: string, manifestKey: string) => string;
  },
): Promise<SyncPlan> {
  const notes: PlanNote[] = [];
  const byKey = new Map(objects.map((object) => [object.key, object]));
  const deliveries: Delivery[] = [];
  for (const object of objects) {
    if (!options.isManifest(object.key)) continue;
    try {
      const parsed = await options.read(object);
      deliveries.push({ manifest: object, parsed, group: `${options.exportOf(object.key)}|${parsed.billingPeriod}` });
    } catch (error) {
      notes.push({ object, outcome: 'rejected', reason: `not a readable manifest: ${(error as Error).message}` });
    }
  }
  const latest = new Map<string, Delivery>();
  for (const delivery of deliveries.sort(byDelivery)) latest.set(delivery.group, delivery);

  const claimed = new Map<string, string>();
  const groups: PlannedGroup[] = [];
  for (const delivery of deliveries) {
    const { parsed, manifest } = delivery;
    const current = latest.get(delivery.group) === delivery;
    const where = { billingPeriod: parsed.billingPeriod, execution: parsed.execution };
    notes.push({ object: manifest, outcome: 'skipped', reason: current ? 'manifest' : 'manifest of an older delivery', ...where });
    // a name as given, else percent-decoded (`BILLING_PERIOD%3D2024-09`), else where the layout says files sit
    const keys = parsed.dataKeys.map(
      (key) =>
        [key, decoded(key), options.besideManifest?.(key, manifest.key)].find((name) => name !== undefined && byKey.has(name)) ?? key,
    );
    const files = keys.map((key) => byKey.get(key));
    for (const key of keys) if (byKey.has(key)) claimed.set(key, delivery.manifest.key);
    const dataFiles = files.filter((file): file is ListedObject => file !== undefined);
    if (!current) {
      const newer = latest.get(delivery.group)?.parsed.execution;
      const reason = `older delivery (${parsed.execution}) of ${parsed.billingPeriod}; the latest (${newer}) replaces it`;
      for (const file of dataFiles) notes.push({ object: file, outcome: 'skipped', reason, ...where });
      continue;
    }
    const missing = keys.filter((key) => !byKey.has(key));
    const refusal =
      parsed.refusal ??
      (missing.length > 0
        ? `its manifest names ${missing.length} file(s) not in the bucket (${missing[0]}): the delivery is incomplete`
        : undefined) ??
      (dataFiles.length === 0 ? 'its manifest names no data file' : undefined) ??
      dataFiles.filter((file) => !formatOfName(file.key)).map((file) => `${file.key} is not a FOCUS data file`)[0];
    if (refusal) {
      for (const file of dataFiles) notes.push({ object: file, outcome: 'rejected', reason: refusal, ...where });
      if (dataFiles.length === 0) notes.push({ object: manifest, outcome: 'rejected', reason: refusal, ...where });
      continue;
    }
    groups.push({ group: delivery.group, ...where, files: dataFiles });
  }
  for (const object of objects) {
    if (options.isManifest(object.key) || claimed.has(object.key)) continue;
    if (formatOfName(object.key))
      notes.push({ object, outcome: 'skipped', reason: 'no manifest names it (a delivery in progress, or left over)' });
    else
      notes.push({
        object,
        outcome: 'rejected',
        reason: `not part of the ${options.layoutName} layout (neither a manifest nor FOCUS data)`,
      });
  }
  return { groups, notes, manifests: deliveries.length };
}
