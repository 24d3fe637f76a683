import jsonata from 'jsonata';
import { ExtensionManifest } from '../manifest/extension-manifest';
import { COST_COLUMNS } from '../manifest/gpd-cost-columns';

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

/**
 * Turns one raw row into one GPD cost row with the manifest's JSONata expressions. JSONata is
 * an expression language: it reads the row it is given and can call only its own functions, so
 * an uploaded mapping cannot reach the process, the file system or the network.
 */
export class RowMapper {
  readonly columns: string[];
  private readonly expressions: [string, jsonata.Expression][];

  constructor(manifest: ExtensionManifest, limits: MapperLimits = DEFAULT_LIMITS) {
    this.columns = COST_COLUMNS.filter((column) => column in manifest.mapping);
    const options = { timeout: limits.timeoutMs, stack: limits.stack, sequence: limits.sequence };
    this.expressions = this.columns.map((column) => [column, jsonata(manifest.mapping[column], options)]);
  }

  async map(row: RawRow): Promise<MappedRow> {
    const values: Record<string, string> = {};
    for (const [column, expression] of this.expressions) {
      let result: unknown;
      try {
        result = await expression.evaluate(row);
      } catch (error) {
        return { ok: false, reason: `${column}: ${(error as Error).message ?? String(error)}` };
      }
      const value = toCell(result);
      if (value === undefined) return { ok: false, reason: `${column}: the expression gives an array or a function, not a value` };
      values[column] = value;
    }
    return { ok: true, values };
  }
}

function toCell(result: unknown): string | undefined {
  if (result === undefined || result === null) return '';
  if (typeof result === 'string') return result;
  if (typeof result === 'number') return Number.isFinite(result) ? String(result) : undefined;
  if (typeof result === 'boolean') return String(result);
  if (typeof result === 'object' && !Array.isArray(result)) return JSON.stringify(result);
  return undefined;
}
