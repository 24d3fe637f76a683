import { Readable } from 'node:stream';
import { CsvRecord, readCsvRows } from '../read/csv-rows';
import { ExtensionManifest } from '../../extensions/manifest/extension-manifest';

export type RawRecord = CsvRecord;

/** Streams the rows of one raw CSV as objects keyed by its header, with the manifest's CSV options. */
export function readRawRows(source: Readable, options: ExtensionManifest['input']['csv'], fileName: string): AsyncGenerator<RawRecord> {
  const encoding = (options.encoding === 'utf-8' ? 'utf8' : options.encoding) as BufferEncoding;
  return readCsvRows(source, fileName, { delimiter: options.delimiter, quote: options.quote, encoding });
}
