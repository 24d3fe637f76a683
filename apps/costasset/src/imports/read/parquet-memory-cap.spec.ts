import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { checkRowGroups, guardedDecompressors, ParquetCapExceeded, ReadAllowance } from './parquet-memory-cap';

/** Two row groups of 1,000 rows: a PLAIN string column of 200 bytes a value (one page), and a number column. */
function file(): ArrayBuffer {
  const rows = 2000;
  return parquetWriteBuffer({
    columnData: [
      {
        name: 'ResourceName',
        data: Array.from({ length: rows }, (_, at) => `${at}`.padEnd(200, 'x')),
        encoding: 'PLAIN',
        offsetIndex: false,
      },
      { name: 'BilledCost', data: Array.from({ length: rows }, (_, at) => at), type: 'DOUBLE', offsetIndex: false },
    ],
    rowGroupSize: 1000,
  });
}

describe('Parquet memory cap', () => {
  const buffer = file();
  const metadata = parquetMetadata(buffer);

  it('lets a file whose row groups fit read', () => {
    expect(() => checkRowGroups(metadata, 10 * 1024 * 1024, () => true)).not.toThrow();
  });

  it('refuses a column chunk whose decoded size is over the cap, naming the row group and the cap', () => {
    const thrown = (() => {
      try {
        checkRowGroups(metadata, 100_000, () => false);
      } catch (error) {
        return error as ParquetCapExceeded;
      }
    })();
    expect(thrown).toBeInstanceOf(ParquetCapExceeded);
    expect(thrown?.rowGroup).toBe(0);
    expect(thrown?.message).toMatch(
      /^row group 0: column ResourceName \(decoded\) needs about \d+ bytes to read, over the cap of 100000 bytes/,
    );
  });

  it('refuses a row group read whole when its columns together are over the cap', () => {
    const chunk = Number(metadata.row_groups[0].columns[0].meta_data?.total_uncompressed_size);
    const cap = chunk + 1000 * 16 + 5000;
    expect(() => checkRowGroups(metadata, cap, () => false)).not.toThrow();
    expect(() => checkRowGroups(metadata, cap, () => true)).toThrow(/row group 0: the row group, read whole/);
  });

  it('counts each decompressed page before allocating it, whatever the footer says', async () => {
    const allowance = new ReadAllowance(50_000);
    allowance.reset(1);
    const read = parquetReadObjects({ file: buffer, metadata, rowStart: 1000, rowEnd: 2000, compressors: guardedDecompressors(allowance) });
    await expect(read).rejects.toThrow(/^row group 1: a decompressed page needs about \d+ bytes/);
    const roomy = new ReadAllowance(10 * 1024 * 1024);
    const rows = await parquetReadObjects({ file: buffer, metadata, rowStart: 0, rowEnd: 10, compressors: guardedDecompressors(roomy) });
    expect(rows[3]).toEqual({ ResourceName: '3'.padEnd(200, 'x'), BilledCost: 3 });
  });
});
