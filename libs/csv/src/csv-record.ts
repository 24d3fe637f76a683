import { stringify } from 'csv-stringify/sync';

export type CsvCell = string | number | null | undefined;

/**
 * Who reads the file: `spreadsheet` for every file handed to a person (downloads, exports), whose
 * text cells are neutralised; `product` for a file the product writes to read back itself (the
 * GPD files of an extension flow), whose values must stay exactly as they are.
 */
export type CsvReader = 'spreadsheet' | 'product';

/** What a spreadsheet runs as a formula (OWASP's list); `+` and `-` only when the text is not a number. */
const FORMULA_START = /^[=+\-@\t\r]/;
const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** A text cell a spreadsheet would not run: one that starts a formula gets a leading `'`, as OWASP recommends. */
export function neutraliseFormula(text: string): string {
  return FORMULA_START.test(text) && !NUMBER.test(text) ? `'${text}` : text;
}

const OPTIONS = { record_delimiter: '\r\n', quoted_match: /[\r\n]/ } as const;

/**
 * One RFC 4180 record, CRLF-terminated: a field is quoted when it holds a comma, a quote or a line
 * break; null and undefined are empty. Text cells are neutralised for a `spreadsheet` reader;
 * numbers are numbers and are never touched.
 */
export function csvRecord(cells: readonly CsvCell[], reader: CsvReader): string {
  const fields = reader === 'spreadsheet' ? cells.map((cell) => (typeof cell === 'string' ? neutraliseFormula(cell) : cell)) : cells;
  return stringify([fields], OPTIONS);
}
