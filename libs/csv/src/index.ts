export { csvRecord, neutraliseFormula } from './csv-record';
export type { CsvCell, CsvReader } from './csv-record';
