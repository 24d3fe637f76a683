import jsonata from 'jsonata';
import { ExtensionManifest } from '../../extensions/manifest/extension-manifest';
import { COST_COLUMNS } from '../../extensions/manifest/gpd-cost-columns';
import { LINEAR_REGEX_ENGINE } from '../../extensions/manifest/linear-regex';

export type RawRow = Record<string, string>;
export type MappedRow = { ok: true; values: Record<string, string> } | { ok: false; reason: string };

export interface MapperLimits {
  /** Budget of one expression on one row; jsonata checks it at every evaluation step. */
  timeoutMs: number;
  /** Deepest evaluation stack (recursion guard). */
  stack: number;
  /** Longest sequence an expression may build. */
  sequence: number;
}

export const DEFAULT_LIMITS: MapperLimits = { timeoutMs: 100, stack: 200, sequence: 10_000 };

type Mapping = { column: string; field: string } | { column: string; expression: jsonata.Expression };

/** A mapping that only names a raw column (`account` or `` `Billing Account` ``): read directly, no evaluation needed. */
const PLAIN_FIELD = /^\s*(?:([A-Za-z_][A-Za-z0-9_]*)|`([^`]+)`)\s*$/;

/**
 * Turns one raw row into one GPD cost row with the manifest's JSONata expressions. JSONata is
 * an expression language: it reads the row it is given and can call only its own functions, so
 * an uploaded mapping cannot reach the process, the file system or the network. Mappings that
 * only name a column are read without JSONata (same result, a fraction of the time).
 */
export class RowMapper {
  readonly columns: string[];
  private readonly mappings: Mapping[];

  constructor(manifest: ExtensionManifest, limits: MapperLimits = DEFAULT_LIMITS) {
    this.columns = COST_COLUMNS.filter((column) => column in manifest.mapping);
    const options = { timeout: limits.timeoutMs, stack: limits.stack, sequence: limits.sequence, RegexEngine: LINEAR_REGEX_ENGINE };
    this.mappings = this.columns.map((column) => {
      const text = manifest.mapping[column];
      const plain = PLAIN_FIELD.exec(text);
      const field = plain?.[1] ?? plain?.[2];
      return field !== undefined && !RESERVED.has(field) ? { column, field } : { column, expression: jsonata(text, options) };
    });
  }

  async map(row: RawRow): Promise<MappedRow> {
    const values: Record<string, string> = {};
    for (const mapping of this.mappings) {
      let result: unknown;
      if ('field' in mapping) {
        result = Object.prototype.hasOwnProperty.call(row, mapping.field) ? row[mapping.field] : undefined;
      } else {
        try {
          result = await mapping.expression.evaluate(row);
        } catch (error) {
          return { ok: false, reason: `${mapping.column}: ${(error as Error).message ?? String(error)}` };
        }
      }
      const value = toCell(result);
      if (value === undefined) return { ok: false, reason: `${mapping.column}: the expression gives an array or a function, not a value` };
      values[mapping.column] = value;
    }
    return { ok: true, values };
  }
}

/** Words JSONata reads as literals, not as field names. */
const RESERVED = new Set(['true', 'false', 'null', 'and', 'or', 'in']);

function toCell(result: unknown): string | undefined {
  if (result === undefined || result === null) return '';
  if (typeof result === 'string') return result;
  if (typeof result === 'number') return Number.isFinite(result) ? String(result) : undefined;
  if (typeof result === 'boolean') return String(result);
  if (typeof result === 'object' && !Array.isArray(result)) return JSON.stringify(result);
  return undefined;
}
