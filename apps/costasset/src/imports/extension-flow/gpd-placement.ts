import { encodeGpdName } from '../read/gpd-names';
import { GPD_REQUIRED_VALUES } from '../rules/row-validator';
import { CellRow, isNullCell } from '../map/cells';
import { HeaderPlan, planHeader, readCostRow, SOURCE_FILE_COLUMN, SOURCE_ROW_COLUMN } from '../map/cost-row';
import { focusColumnOf } from '../map/focus-columns';
import { RowProblem } from '../report/ingest-report';

export interface Placement {
  period: string;
  billingAccountId: string;
  /** Path of the cost file inside the GPD zip. */
  entryName: string;
  /** The cells to write: dates in UTC ISO 8601, null cells empty, the raw file and line beside them. */
  cells: Record<string, string>;
}

/** The cost file of a (period, billing account) pair, named as the GPD layout wants it (the id encoded). */
export function costEntryName(period: string, billingAccountId: string): string {
  const folder = encodeGpdName(billingAccountId);
  return `${period}/${folder}/C_${folder}_${period}01T000000Z.csv`;
}

const EMPTY_METADATA = { categoriesByAssetType: new Map<string, string>(), locationsByRegion: new Map() };
const ANY_RATE = { corporateCurrency: 'XXX', rateOf: () => 1 };

/**
 * Checks a mapped row with the rules enrichment applies (so a flow never hands enrichment rows it
 * will refuse) and says where it goes in the GPD zip: the period folder from `ChargePeriodStart`
 * (UTC, whatever the server's time zone), the account folder from `BillingAccountId` (any id,
 * encoded). Exchange rates are left to enrichment, which converts with the rates of its day.
 */
export class RowPlacer {
  private plan?: HeaderPlan;

  constructor(private readonly providerName: string) {}

  place(values: Record<string, string>, source: { file: string; line: number }): Placement | { problems: RowProblem[] } {
    this.plan ??= planHeader(Object.keys(values), undefined);
    const checked = readCostRow(values as CellRow, this.plan, source.line, {
      uploadRefId: '',
      conversion: ANY_RATE,
      metadataOf: () => EMPTY_METADATA,
      providerName: this.providerName,
      required: GPD_REQUIRED_VALUES,
      conformance: false,
      sourceFile: source.file,
    });
    if (!checked.doc) return { problems: checked.problems };
    const { period, billingAccountId } = checked.doc;
    const cells: Record<string, string> = { [SOURCE_FILE_COLUMN]: source.file, [SOURCE_ROW_COLUMN]: String(source.line) };
    for (const [column, value] of Object.entries(values)) {
      const kind = focusColumnOf(column)?.kind;
      const parsed = kind === 'date' ? (checked.doc as unknown as Record<string, unknown>)[focusColumnOf(column)?.field ?? ''] : undefined;
      cells[column] = isNullCell(value) ? '' : parsed instanceof Date ? parsed.toISOString() : value;
    }
    return { period, billingAccountId, entryName: costEntryName(period, billingAccountId), cells };
  }
}
