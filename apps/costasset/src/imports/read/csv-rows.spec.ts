import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { PermanentJobError } from '../../jobs/job-handler';
import { MAX_RECORD_BYTES, readCsvBatches, readCsvRows } from './csv-rows';

type Outcome = unknown[];

/** What the reader gave before papaparse: csv-parse with the reader's options (the reference). */
async function csvParseRows(text: Buffer): Promise<Outcome> {
  const out: Outcome = [];
  const parser = Readable.from([text]).pipe(
    parse({ bom: true, relax_column_count: true, skip_empty_lines: true, max_record_size: MAX_RECORD_BYTES, info: true }),
  );
  let header: string[] | undefined;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      if (!header) {
        header = record.map((column) => column.trim());
        out.push(['header', header]);
      } else if (record.length !== header.length) out.push([info.lines, `expected ${header.length} fields, found ${record.length}`]);
      else out.push([info.lines, Object.fromEntries(header.map((column, index) => [column, record[index]]))]);
    }
  } catch (error) {
    // the file fails: what was read before does not count
    return [['failed', (error as { lines?: number }).lines]];
  }
  return out;
}

async function readerRows(chunks: (Buffer | string)[]): Promise<Outcome> {
  const out: Outcome = [];
  try {
    for await (const { row, line, problem } of readCsvRows(Readable.from(chunks), 'f.csv', {
      onHeader: (header) => out.push(['header', header]),
    }))
      out.push([line, problem ?? row]);
  } catch (error) {
    expect(error).toBeInstanceOf(PermanentJobError);
    const { errors } = (error as PermanentJobError).details as { errors: { file: string; line: number; reason: string }[] };
    expect(errors[0].file).toBe('f.csv');
    expect(errors[0].reason).toMatch(/^f\.csv is not a readable CSV: /);
    return [['failed', errors[0].line]];
  }
  return out;
}

const split = (bytes: Buffer, size: number): Buffer[] => {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
  return chunks;
};

/** A small deterministic generator of CSVs with every case the reader must keep: csv-parse's records and lines. */
function generator(seed: number) {
  let state = seed;
  const random = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)];
  const field = (newline: string): string =>
    pick([
      () => 'abc',
      () => '',
      () => '1.5',
      () => 'NULL',
      () => 'café ☕ 𝄞',
      () => `"x${pick(['\n', '\r\n', '\r', ''])}y"`,
      () => '"a,b"',
      () => '"he said ""hi"""',
      () => '""',
      () => '  sp  ',
      () => `"multi${newline}line${newline}${newline}text"`,
      () => '"{""user:team"":""a"",""flagged"":true}"',
      () => (random() < 0.1 ? '"a"b' : 'ok'),
      () => (random() < 0.1 ? 'x"y' : 'ok'),
      () => (random() < 0.1 ? '"q" ' : 'ok'),
      () => (random() < 0.05 ? '"never closed' : 'ok'),
    ])();
  return (): string => {
    const newline = pick(['\n', '\r\n', '\r']);
    const width = 1 + Math.floor(random() * 4);
    let text = (random() < 0.2 ? '\ufeff' : '') + Array.from({ length: width }, (_, index) => `h${index}`).join(',') + newline;
    const rows = Math.floor(random() * 12);
    for (let row = 0; row < rows; row++) {
      if (random() < 0.15) {
        text += newline;
        continue;
      }
      const fields = random() < 0.1 ? Math.max(1, width + pick([-1, 1])) : width;
      text += Array.from({ length: fields }, () => field(newline)).join(',');
      if (row < rows - 1 || random() < 0.7) text += newline;
    }
    return text;
  };
}

describe('readCsvRows (papaparse, chunk by chunk)', () => {
  it('gives the records, lines and refusals csv-parse gave, whatever the chunks (quoted breaks, blank lines, CRLF, CR, BOM)', async () => {
    const next = generator(7);
    for (let file = 0; file < 1500; file++) {
      const bytes = Buffer.from(next());
      const expected = await csvParseRows(bytes);
      for (const size of [1, 2, 3, 7, 64, bytes.length]) expect([size, await readerRows(split(bytes, size))]).toEqual([size, expected]);
    }
  });

  it('counts lines as csv-parse does: quoted line breaks, blank lines, CRLF, and a last row without a line break', async () => {
    const text = 'a,b\r\n"x\r\ny",1\r\n\r\n\r\n2,"p\n\nq"\r\n3,4';
    const rows = await readerRows(split(Buffer.from(text), 5));
    expect(rows).toEqual([
      ['header', ['a', 'b']],
      [4, { a: 'x\r\ny', b: '1' }],
      [9, { a: '2', b: 'p\n\nq' }],
      [10, { a: '3', b: '4' }],
    ]);
    expect(rows).toEqual(await csvParseRows(Buffer.from(text)));
  });

  it('keeps a multi-byte character split across chunks, and takes the record delimiter from the whole first row', async () => {
    const text = '\ufeffname,"note\r\nwith a break"\r\ncafé ☕,"x"\r\n';
    for (const size of [1, 2, 3, 5]) {
      expect(await readerRows(split(Buffer.from(text), size))).toEqual([
        ['header', ['name', 'note\r\nwith a break']],
        [4, { name: 'café ☕', 'note\r\nwith a break': 'x' }],
      ]);
    }
  });

  it('reports a row of the wrong width with its line, and skips blank lines but not a line of `""`', async () => {
    expect(await readerRows([Buffer.from('a,b\n1\n\n""\n2,3\n')])).toEqual([
      ['header', ['a', 'b']],
      [2, 'expected 2 fields, found 1'],
      [4, 'expected 2 fields, found 1'],
      [5, { a: '2', b: '3' }],
    ]);
  });

  it('decodes another encoding, and a byte order mark chooses it as csv-parse did', async () => {
    const latin1 = Buffer.from('name;price\ncaf\u00e9;1\n', 'latin1');
    const rows: unknown[] = [];
    for await (const { row } of readCsvRows(Readable.from(split(latin1, 4)), 'f.csv', { delimiter: ';', encoding: 'latin1' }))
      rows.push(row);
    expect(rows).toEqual([{ name: 'café', price: '1' }]);
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('a,b\n1,2\n', 'utf16le')]);
    expect(await readerRows(split(utf16, 3))).toEqual([
      ['header', ['a', 'b']],
      [2, { a: '1', b: '2' }],
    ]);
  });

  it('refuses a record over the maximum size with its line, in one chunk or many, and reads one under it', async () => {
    const big = 'x'.repeat(MAX_RECORD_BYTES + 10);
    for (const chunks of [[Buffer.from(`a,b\n1,2\n3,${big}\n5,6\n`)], split(Buffer.from(`a,b\n1,2\n3,${big}\n5,6\n`), 65536)]) {
      const error = await readerRows(chunks);
      expect(error).toEqual([['failed', 3]]);
    }
    const failure = await (async () => {
      try {
        for await (const _ of readCsvRows(Readable.from([`a\n${big}`]), 'f.csv'));
      } catch (error) {
        return error as PermanentJobError;
      }
    })();
    expect(failure?.message).toBe(
      `f.csv is not a readable CSV: Max Record Size: record exceed the maximum number of tolerated bytes of ${MAX_RECORD_BYTES} at line 2`,
    );
    const fits = 'y'.repeat(MAX_RECORD_BYTES - 100);
    expect(await readerRows(split(Buffer.from(`a\n${fits}\n`), 16384))).toEqual([
      ['header', ['a']],
      [2, { a: fits }],
    ]);
  });

  it('yields record arrays by chunk, with their lines and field-count problems', async () => {
    const headers: string[][] = [];
    const batches = [];
    for await (const batch of readCsvBatches(Readable.from(['a,b\n1,2\n', '3\n4,"5\n6"\n']), 'f.csv', { onHeader: (h) => headers.push(h) }))
      batches.push(batch);
    expect(headers).toEqual([['a', 'b']]);
    expect(batches).toEqual([
      { rows: [['1', '2']], lines: [2] },
      { rows: [['3'], ['4', '5\n6']], lines: [3, 5], problems: ['expected 2 fields, found 1'] },
    ]);
  });

  it('passes a fault of the object store through as it is (a transient fault, not a broken file)', async () => {
    const source = new Readable({
      read() {
        this.destroy(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));
      },
    });
    const error = await (async () => {
      try {
        for await (const _ of readCsvRows(source, 'f.csv'));
      } catch (caught) {
        return caught as Error;
      }
    })();
    expect(error).toBeDefined();
    expect(error).not.toBeInstanceOf(PermanentJobError);
  });
});
