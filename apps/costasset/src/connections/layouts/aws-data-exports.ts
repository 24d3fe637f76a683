import { ExportLayout, ManifestError, ParsedManifest, periodOf } from './export-layout';
import { planFromManifests } from './manifest-plans';

const MANIFEST = /(?:^|\/)metadata\/BILLING_PERIOD=(\d{4}-\d{2})\/(?:.*\/)?[^/]+-Manifest\.json$/;

/** `s3://bucket/path/to/file` → `path/to/file`. */
function keyOfUri(uri: unknown): string {
  if (typeof uri !== 'string') throw new ManifestError('dataFiles holds a value that is not a string');
  const match = /^s3:\/\/[^/]+\/(.+)$/.exec(uri);
  return match ? match[1] : uri.replace(/^\/+/, '');
}

const isFocusColumns = (columns: unknown): boolean =>
  !Array.isArray(columns) ||
  columns.length === 0 ||
  columns.some((column: { name?: unknown }) => String(column?.name).toLowerCase() === 'billedcost');

/**
 * AWS Data Exports: data under `<export>/data/BILLING_PERIOD=YYYY-MM/…`, and per delivery a
 * `<export>-Manifest.json` under `<export>/metadata/BILLING_PERIOD=YYYY-MM/…` naming its data
 * files (`dataFiles`, full `s3://` URIs) and its `executionId`. AWS rewrites the manifest on every
 * refresh ("overwrite" delivery) or writes one per execution ("create new"); either way the latest
 * manifest of a billing period names the files that hold the period.
 */
export const awsDataExports: ExportLayout = {
  isManifest: (key) => MANIFEST.test(key),

  parseManifest(key, text): ParsedManifest {
    const period = MANIFEST.exec(key)?.[1];
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new ManifestError('not JSON');
    }
    if (!body || typeof body !== 'object' || !Array.isArray(body.dataFiles)) throw new ManifestError('no dataFiles list');
    const billing = body.billingPeriod as { start?: unknown } | undefined;
    const billingPeriod = period ?? periodOf(billing?.start);
    if (!billingPeriod) throw new ManifestError('no billing period');
    const execution = typeof body.executionId === 'string' && body.executionId ? body.executionId : key;
    const deliveredAt = typeof body.deliveredAt === 'string' ? new Date(body.deliveredAt) : undefined;
    return {
      execution,
      billingPeriod,
      dataKeys: body.dataFiles.map(keyOfUri),
      ...(deliveredAt && !Number.isNaN(deliveredAt.getTime()) ? { deliveredAt } : {}),
      ...(isFocusColumns(body.columns)
        ? {}
        : { refusal: 'the export is not FOCUS (its manifest lists no BilledCost column): choose FOCUS 1.0 as the export type' }),
    };
  },

  plan(objects, read) {
    return planFromManifests(objects, {
      layoutName: 'aws-data-exports',
      isManifest: (key) => MANIFEST.test(key),
      exportOf: (key) => key.slice(0, key.search(/(?:^|\/)metadata\/BILLING_PERIOD=/)),
      read,
    });
  },
};
