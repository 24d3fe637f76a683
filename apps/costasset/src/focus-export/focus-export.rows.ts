import type { CsvCell } from '@lib/csv';
import { columnsOf, FocusColumn, FocusVersion } from '../imports/map/focus-columns';
import type { CostLineItem } from '../line-items/schemas/cost-line-item.schema';
import { joinTags } from '../line-items/tags';
import type { ParquetColumn } from './parquet-output';

export const EXPORT_VERSION: FocusVersion = '1.2';

/** Field of a column in a line item: the provider column is the line item's `providerName`. */
const fieldOf = (column: FocusColumn) => column.field ?? (column.name === 'ProviderName' ? 'providerName' : undefined);

export interface ExportLayout {
  columns: FocusColumn[];
  custom: string[];
  header: string[];
}

export function exportLayout(customColumns: string[]): ExportLayout {
  const columns = columnsOf(EXPORT_VERSION);
  return { columns, custom: customColumns, header: [...columns.map((column) => column.name), ...customColumns] };
}

function monthStart(period: string | undefined, offset = 0): Date | undefined {
  if (!period) return undefined;
  return new Date(Date.UTC(Number(period.slice(0, 4)), Number(period.slice(4, 6)) - 1 + offset, 1));
}

/**
 * One line item as a FOCUS 1.2 row: every column from the field it was read into (so importing
 * the export gives the same line items back), values typed (numbers, Dates, strings, null), the
 * `x_` columns it carried. A line item of a GPD file without a billing period gets the month of
 * its `billingPeriod`.
 */
export function toFocusRow(item: Partial<CostLineItem>, layout: ExportLayout): Record<string, string | number | Date | null> {
  const source = item as Record<string, unknown>;
  const row: Record<string, string | number | Date | null> = {};
  for (const column of layout.columns) {
    const field = fieldOf(column);
    let value = field ? source[field] : undefined;
    if (column.name === 'Tags') value = item.tags?.length ? JSON.stringify(joinTags(item.tags)) : undefined;
    else if (column.name === 'BillingPeriodStart') value ??= monthStart(item.billingPeriod);
    else if (column.name === 'BillingPeriodEnd') value ??= monthStart(item.billingPeriod, 1);
    row[column.name] = value === undefined || value === null ? null : (value as string | number | Date);
  }
  const custom = new Map((item.customColumns ?? []).map((entry) => [entry.name, entry.value]));
  for (const name of layout.custom) row[name] = custom.get(name) ?? null;
  return row;
}

/** CSV cell of a typed value: ISO 8601 UTC dates, numbers kept numbers (written in their shortest exact form), null as empty. */
export function csvCell(value: string | number | Date | null): CsvCell {
  return value instanceof Date ? value.toISOString() : value;
}

export function parquetColumnsOf(layout: ExportLayout): ParquetColumn[] {
  return [
    ...layout.columns.map((column): ParquetColumn => ({
      name: column.name,
      type: column.kind === 'decimal' ? 'DOUBLE' : column.kind === 'date' ? 'TIMESTAMP' : 'STRING',
    })),
    ...layout.custom.map((name): ParquetColumn => ({ name, type: 'STRING' })),
  ];
}
