import { Readable } from 'node:stream';
import { PermanentJobError } from '../../jobs/job-handler';
import { readCsvBatches } from './csv-rows';
import type { FocusFile, FocusRowBatch } from './focus-file';

/**
 * A FOCUS CSV (already gunzipped) opened for reading: its header, then its rows as batches of
 * record arrays (for `costRowReader`). A file without a header row fails.
 */
export async function openFocusCsv(source: Readable, name: string): Promise<Pick<FocusFile, 'header' | 'batches'>> {
  let header: string[] | undefined;
  const read = readCsvBatches(source, name, { onHeader: (found) => (header = found) });
  const first = await read.next();
  if (!header)
    throw new PermanentJobError(`${name} has no header row`, { errors: [{ file: name, line: 0, reason: 'the file has no header row' }] });
  const columns = header;
  async function* batches(): AsyncGenerator<FocusRowBatch> {
    if (!first.done) yield first.value;
    for await (const batch of read) yield batch;
  }
  return { header: columns, batches: batches() };
}
