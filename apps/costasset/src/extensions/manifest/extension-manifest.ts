import jsonata from 'jsonata';
import { compileFilePattern } from './file-pattern';
import { LinearRegex, regexLiterals } from './linear-regex';
import { COST_COLUMNS, REQUIRED_COST_COLUMNS } from './gpd-cost-columns';

export const MANIFEST_FILE = 'extension.json';
export const CSV_ENCODINGS = ['utf8', 'utf-8', 'latin1', 'utf16le'] as const;
export type CsvEncoding = (typeof CSV_ENCODINGS)[number];

/**
 * `extension.json`, at the root of an extension zip:
 *   providerCode  equal to the ProviderCode it is uploaded under
 *   version       a non-empty string (e.g. "1.0.0")
 *   input         { filePattern, csv: { delimiter, quote, header: true, encoding } }
 *   mapping       { <GPD cost column>: <JSONata expression over one raw row> }
 *   metadata?     { providerName?, currency? }  written into provider_metadata.yml of the GPD
 */
export interface ExtensionManifest {
  providerCode: string;
  version: string;
  input: { filePattern: string; csv: { delimiter: string; quote: string; header: true; encoding: CsvEncoding } };
  mapping: Record<string, string>;
  metadata?: { providerName?: string; currency?: string };
}

export interface ManifestProblem {
  path?: string;
  message: string;
}

export type CheckedManifest = { manifest: ExtensionManifest; errors: [] } | { manifest?: undefined; errors: ManifestProblem[] };

const MAX_EXPRESSION_LENGTH = 4096;
const TOP_LEVEL = ['providerCode', 'version', 'input', 'mapping', 'metadata'];
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isText = (value: unknown, max = 200): value is string => typeof value === 'string' && value.length > 0 && value.length <= max;

/** Checks the schema and compiles (never evaluates) every JSONata expression. */
export function checkManifest(text: string, providerCode: string): CheckedManifest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { errors: [{ path: MANIFEST_FILE, message: `not valid JSON: ${(error as Error).message}` }] };
  }
  if (!isObject(parsed)) return { errors: [{ path: MANIFEST_FILE, message: 'must be a JSON object' }] };

  const errors: ManifestProblem[] = [];
  for (const key of Object.keys(parsed)) if (!TOP_LEVEL.includes(key)) errors.push({ path: key, message: 'unknown property' });
  if (!isText(parsed.providerCode, 64)) errors.push({ path: 'providerCode', message: 'required string' });
  else if (parsed.providerCode !== providerCode)
    errors.push({ path: 'providerCode', message: `"${parsed.providerCode}" differs from the ProviderCode "${providerCode}"` });
  if (!isText(parsed.version, 64)) errors.push({ path: 'version', message: 'required string' });
  checkInput(parsed.input, errors);
  checkMapping(parsed.mapping, errors);
  checkMetadata(parsed.metadata, errors);
  return errors.length > 0 ? { errors } : { manifest: parsed as unknown as ExtensionManifest, errors: [] };
}

function checkInput(input: unknown, errors: ManifestProblem[]): void {
  if (!isObject(input)) {
    errors.push({ path: 'input', message: 'required object with filePattern and csv' });
    return;
  }
  if (!isText(input.filePattern, 500))
    errors.push({ path: 'input.filePattern', message: 'required string (glob, or a regular expression between slashes)' });
  else {
    try {
      compileFilePattern(input.filePattern);
    } catch (error) {
      errors.push({ path: 'input.filePattern', message: `not a valid pattern: ${(error as Error).message}` });
    }
  }
  const csv = input.csv;
  if (!isObject(csv)) {
    errors.push({ path: 'input.csv', message: 'required object with delimiter, quote, header and encoding' });
    return;
  }
  if (typeof csv.delimiter !== 'string' || csv.delimiter.length !== 1 || /[\r\n]/.test(csv.delimiter))
    errors.push({ path: 'input.csv.delimiter', message: 'one character' });
  if (typeof csv.quote !== 'string' || csv.quote.length !== 1 || csv.quote === csv.delimiter)
    errors.push({ path: 'input.csv.quote', message: 'one character, other than the delimiter' });
  if (csv.header !== true) errors.push({ path: 'input.csv.header', message: 'must be true: rows are addressed by column name' });
  if (!CSV_ENCODINGS.includes(csv.encoding as CsvEncoding))
    errors.push({ path: 'input.csv.encoding', message: `one of ${CSV_ENCODINGS.join(', ')}` });
}

function checkMapping(mapping: unknown, errors: ManifestProblem[]): void {
  if (!isObject(mapping)) {
    errors.push({ path: 'mapping', message: 'required object: GPD column → JSONata expression' });
    return;
  }
  for (const [column, expression] of Object.entries(mapping)) {
    const path = `mapping.${column}`;
    if (!COST_COLUMNS.includes(column)) {
      errors.push({ path, message: 'unknown GPD column' });
      continue;
    }
    if (!isText(expression, MAX_EXPRESSION_LENGTH)) {
      errors.push({ path, message: `a JSONata expression (a non-empty string of at most ${MAX_EXPRESSION_LENGTH} characters)` });
      continue;
    }
    try {
      for (const literal of regexLiterals(jsonata(expression).ast())) {
        try {
          new LinearRegex(literal);
        } catch (error) {
          errors.push({ path, message: `${literal} is not a regular expression of RE2 syntax: ${(error as Error).message}` });
        }
      }
    } catch (error) {
      const { message, position } = error as { message: string; position?: number };
      errors.push({ path, message: `JSONata syntax error${position !== undefined ? ` at ${position}` : ''}: ${message}` });
    }
  }
  for (const column of REQUIRED_COST_COLUMNS)
    if (!(column in mapping)) errors.push({ path: `mapping.${column}`, message: 'required GPD column is not mapped' });
}

function checkMetadata(metadata: unknown, errors: ManifestProblem[]): void {
  if (metadata === undefined) return;
  if (!isObject(metadata)) {
    errors.push({ path: 'metadata', message: 'must be an object' });
    return;
  }
  for (const key of Object.keys(metadata))
    if (key !== 'providerName' && key !== 'currency') errors.push({ path: `metadata.${key}`, message: 'unknown property' });
  if (
    metadata.providerName !== undefined &&
    (!isText(metadata.providerName, 100) || !/^[A-Za-z0-9][A-Za-z0-9 ._-]*$/.test(metadata.providerName))
  ) {
    errors.push({ path: 'metadata.providerName', message: 'letters, digits, space, dot, dash, underscore' });
  }
  if (metadata.currency !== undefined && (typeof metadata.currency !== 'string' || !/^[A-Z]{3}$/.test(metadata.currency))) {
    errors.push({ path: 'metadata.currency', message: 'an ISO 4217 code' });
  }
}

/** The provider name and currency the generated GPD file carries. */
export const providerNameOf = (manifest: ExtensionManifest) => manifest.metadata?.providerName ?? manifest.providerCode;
export const currencyOf = (manifest: ExtensionManifest) => manifest.metadata?.currency ?? 'USD';
