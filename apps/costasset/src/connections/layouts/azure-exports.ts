import { ExportLayout, ManifestError, ParsedManifest, parentOf, periodOf } from './export-layout';
import { planFromManifests } from './manifest-plans';

const MANIFEST = /(?:^|\/)manifest\.json$/i;

/**
 * Azure Cost Management exports: per run, a folder `<root>/<export>/<YYYYMMDD-YYYYMMDD>/<runId>/`
 * holding the data parts and a `manifest.json` that names them (`blobs[].blobName`) with the run
 * (`runInfo.runId`, `submittedTime`, `startDate`). The latest run of a billing period holds it.
 */
export const azureExports: ExportLayout = {
  isManifest: (key) => MANIFEST.test(key),

  parseManifest(key, text): ParsedManifest {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new ManifestError('not JSON');
    }
    if (!body || typeof body !== 'object' || !Array.isArray(body.blobs)) throw new ManifestError('no blobs list');
    const run = (body.runInfo ?? {}) as { runId?: unknown; submittedTime?: unknown; startDate?: unknown };
    const billingPeriod = periodOf(run.startDate) ?? periodOf(/\/(\d{8})-\d{8}\//.exec(`/${key}`)?.[1]);
    if (!billingPeriod) throw new ManifestError('no runInfo.startDate');
    const dataKeys = body.blobs.map((blob: { blobName?: unknown }) => {
      if (typeof blob?.blobName !== 'string') throw new ManifestError('a blob without blobName');
      return blob.blobName.replace(/^\/+/, '');
    });
    const submitted = typeof run.submittedTime === 'string' ? new Date(run.submittedTime) : undefined;
    const type = String((body.exportConfig as { type?: unknown } | undefined)?.type ?? 'FocusCost');
    return {
      execution: typeof run.runId === 'string' && run.runId ? run.runId : parentOf(key),
      billingPeriod,
      dataKeys,
      ...(submitted && !Number.isNaN(submitted.getTime()) ? { deliveredAt: submitted } : {}),
      ...(/focus/i.test(type)
        ? {}
        : { refusal: `the export is ${type}, not FOCUS: choose "Cost and usage details (FOCUS)" as the export's dataset` }),
    };
  },

  plan(objects, read) {
    return planFromManifests(objects, {
      layoutName: 'azure-exports',
      isManifest: (key) => MANIFEST.test(key),
      // <root>/<export>/<dates>/<runId>/manifest.json → <root>/<export>
      exportOf: (key) => parentOf(parentOf(parentOf(key))),
      read,
      // blob names are paths in the container; one that is not (a copied container, another root) is looked for in the run's folder
      besideManifest: (name, manifestKey) => `${parentOf(manifestKey)}/${name.slice(name.lastIndexOf('/') + 1)}`,
    });
  },
};
