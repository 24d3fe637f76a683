import { decodeGpdName } from './gpd-names';

/**
 * The layout of a GPD zip (docs/gpd-format.md#zip-layout), checked on the entry names alone before any row is read:
 *   provider_metadata.yml
 *   YYYYMM/<billingAccountId>/C_<billingAccountId>_<timestamp>.csv        exactly one per account
 *   YYYYMM/<billingAccountId>/<assetAccountId>/A_*.csv                    exactly one per asset account
 *   YYYYMM/<billingAccountId>/<assetAccountId>/U_*.csv                    at most one per asset account
 * Anything else, an empty folder, or a folder without its required file is a structural error.
 * Account folders carry ids encoded by `encodeGpdName` (`%HH` for any other character); the
 * files answer the decoded ids.
 */
export const METADATA_FILE = 'provider_metadata.yml';

export type GpdFileKind = 'cost' | 'asset' | 'utilization';

export interface GpdDataFile {
  name: string;
  kind: GpdFileKind;
  period: string;
  billingAccountId: string;
  assetAccountId?: string;
}

export interface StructuralError {
  file: string;
  reason: string;
}

export interface GpdLayout {
  files: GpdDataFile[];
  errors: StructuralError[];
}

const PERIOD = /^\d{4}(0[1-9]|1[0-2])$/;
const SEGMENT = /^[A-Za-z0-9%][A-Za-z0-9._@+=%-]*$/;

function classify(segments: string[]): GpdDataFile | string {
  const [period, accountFolder, third, fourth] = segments;
  if (!PERIOD.test(period)) return `"${period}" is not a period folder (YYYYMM)`;
  const billingAccountId = decodeGpdName(accountFolder);
  if (billingAccountId === undefined) return `"${accountFolder}" is not a valid encoded account id`;
  if (segments.length === 3) {
    const file = third;
    if (file.startsWith(`C_${accountFolder}_`) && file.endsWith('.csv') && file.length > `C_${accountFolder}_.csv`.length) {
      return { name: segments.join('/'), kind: 'cost', period, billingAccountId };
    }
    return 'unexpected file; a billing-account folder holds one C_<account>_<timestamp>.csv and asset-account folders';
  }
  if (segments.length === 4) {
    const kind: GpdFileKind | undefined = /^A_.+\.csv$/.test(fourth) ? 'asset' : /^U_.+\.csv$/.test(fourth) ? 'utilization' : undefined;
    const assetAccountId = decodeGpdName(third);
    if (assetAccountId === undefined) return `"${third}" is not a valid encoded account id`;
    if (kind) return { name: segments.join('/'), kind, period, billingAccountId, assetAccountId };
    return 'unexpected file; an asset-account folder holds one A_*.csv and optionally one U_*.csv';
  }
  return 'unexpected file location';
}

export function validateLayout(entryNames: string[]): GpdLayout {
  const errors: StructuralError[] = [];
  const files: GpdDataFile[] = [];
  const folders = new Set<string>();
  let hasMetadata = false;

  for (const raw of entryNames) {
    const isFolder = raw.endsWith('/');
    const name = isFolder ? raw.slice(0, -1) : raw;
    const segments = name.split('/');
    if (raw.startsWith('/') || raw.includes('\\') || segments.some((segment) => !SEGMENT.test(segment))) {
      errors.push({ file: raw, reason: 'unsafe or unexpected entry name' });
      continue;
    }
    for (let depth = 1; depth < segments.length + (isFolder ? 1 : 0); depth++) folders.add(segments.slice(0, depth).join('/'));
    if (isFolder) continue;
    if (name === METADATA_FILE) {
      hasMetadata = true;
      continue;
    }
    if (segments.length < 3) {
      errors.push({ file: raw, reason: 'unexpected file; only provider_metadata.yml and period folders are allowed at this level' });
      continue;
    }
    const result = classify(segments);
    if (typeof result === 'string') errors.push({ file: raw, reason: result });
    else files.push(result);
  }

  if (!hasMetadata) errors.push({ file: METADATA_FILE, reason: 'missing provider_metadata.yml at the root of the archive' });
  checkFolders(folders, files, errors);
  if (files.length === 0 && errors.length === 0) errors.push({ file: '', reason: 'the archive holds no data' });
  return { files: files.sort((a, b) => a.name.localeCompare(b.name)), errors };
}

function checkFolders(folders: Set<string>, files: GpdDataFile[], errors: StructuralError[]): void {
  for (const folder of [...folders].sort()) {
    const depth = folder.split('/').length;
    const inside = files.filter((file) => file.name.startsWith(`${folder}/`));
    const direct = inside.filter((file) => file.name.split('/').length === depth + 1);
    if (depth === 1) {
      if (!PERIOD.test(folder)) errors.push({ file: `${folder}/`, reason: 'not a period folder (YYYYMM)' });
      else if (inside.length === 0) errors.push({ file: `${folder}/`, reason: 'empty period folder' });
    } else if (depth === 2 || depth === 3) {
      const required: GpdFileKind = depth === 2 ? 'cost' : 'asset';
      const count = (kind: GpdFileKind) => direct.filter((file) => file.kind === kind).length;
      if (inside.length === 0) errors.push({ file: `${folder}/`, reason: 'empty account folder' });
      else if (count(required) !== 1)
        errors.push({
          file: `${folder}/`,
          reason: `an account folder needs exactly one ${required === 'cost' ? 'C_' : 'A_'}*.csv (found ${count(required)})`,
        });
      if (depth === 3 && count('utilization') > 1) errors.push({ file: `${folder}/`, reason: 'more than one U_*.csv' });
    } else {
      errors.push({ file: `${folder}/`, reason: 'unexpected folder' });
    }
  }
}
