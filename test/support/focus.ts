import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { FocusVersion } from '../../apps/costasset/src/imports/map/focus-columns';
import { FocusSumsReport } from '../../tools/focus/focus-rows';
import { FocusFileFormat, generateFocus, GenerateFocusOptions } from '../../tools/focus/generate';
import { FinishedJob, waitForJob } from './ingest';
import { Platform } from './platform';

export interface GeneratedFocus {
  name: string;
  body: Buffer;
  sums: FocusSumsReport;
}

/** A FOCUS file from the generator of tools/focus, in memory, with its exact sums. */
export async function focusFile(
  options: Partial<GenerateFocusOptions> & { version: FocusVersion; format: FocusFileFormat },
  name = `focus-${options.version}.${options.format}`,
): Promise<GeneratedFocus> {
  const dir = await mkdtemp(join(tmpdir(), 'focus-e2e-'));
  try {
    const out = join(dir, 'file');
    const sums = await generateFocus({ rows: 200, providers: ['aws', 'azure', 'oci', 'gcp'], periods: ['202410'], ...options, out });
    return { name, body: await readFile(out), sums };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export interface FocusImport {
  uploadId: string;
  job: FinishedJob;
}

/** The user path up to the import's start: create the upload naming the files, PUT each to its URL, start the import. */
export async function startFocusImport(
  platform: Platform,
  token: string,
  files: { name: string; body: Buffer }[],
  extra: Record<string, unknown> = {},
): Promise<{ uploadId: string; jobId: string }> {
  const api = () => request(platform.costasset.url);
  const created = await api()
    .post('/api/costasset/v1/focus/uploads')
    .set('corelite-token', token)
    .send({ files: files.map(({ name }) => ({ name })), ...extra })
    .expect(201);
  for (const [index, file] of files.entries()) {
    const put = await fetch(created.body.files[index].uploadUrl, { method: 'PUT', body: file.body });
    if (put.status !== 200) throw new Error(`PUT answered ${put.status}`);
  }
  const started = await api().post(created.body.importPath).set('corelite-token', token).send({}).expect(202);
  return { uploadId: created.body.uploadId, jobId: started.body.jobId };
}

/** The user path: start the import (`startFocusImport`), then wait for the job. */
export async function importFocus(
  platform: Platform,
  token: string,
  files: { name: string; body: Buffer }[],
  extra: Record<string, unknown> = {},
): Promise<FocusImport> {
  const { uploadId, jobId } = await startFocusImport(platform, token, files, extra);
  return { uploadId, job: await waitForJob(platform, token, jobId, 60_000) };
}

export type Totals = {
  key: Record<string, string | null>;
  lineItems: number;
  cost: number;
  billedCost: number;
  effectiveCost: number;
  listCost: number;
  contractedCost: number;
};

/**
 * Totals read twice, as the API promises them (docs/rollups.md, "Equality"): keys and counts equal,
 * amounts summed in another order (the line items, or the rollup rows) may differ in the last binary digits.
 */
export function expectSameTotals(actual: unknown, expected: unknown, path = '$'): void {
  if (typeof actual === 'number' && typeof expected === 'number') {
    if (Math.abs(actual - expected) > 1e-9 * Math.max(1, Math.abs(expected))) throw new Error(`${path}: ${actual} != ${expected}`);
    return;
  }
  if (actual && expected && typeof actual === 'object' && typeof expected === 'object') {
    expect(Object.keys(actual).sort()).toEqual(Object.keys(expected).sort());
    for (const key of Object.keys(actual)) expectSameTotals((actual as never)[key], (expected as never)[key], `${path}.${key}`);
    return;
  }
  expect(actual).toEqual(expected);
}

export async function costTotals(platform: Platform, token: string, query: Record<string, string>): Promise<Totals[]> {
  const res = await request(platform.costasset.url)
    .get('/api/costasset/v1/costLineItems/totals')
    .query(query)
    .set('corelite-token', token)
    .expect(200);
  return res.body.groups as Totals[];
}

/** Every line item of a selection, through the cursor pages of the list API. */
export async function allLineItems(platform: Platform, token: string, query: Record<string, string>): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  do {
    const res: request.Response = await request(platform.costasset.url)
      .get('/api/costasset/v1/costLineItems')
      .query({ ...query, limit: 1000, ...(cursor ? { cursor } : {}) })
      .set('corelite-token', token)
      .expect(200);
    items.push(...res.body.items);
    cursor = res.body.nextCursor;
  } while (cursor);
  return items;
}
