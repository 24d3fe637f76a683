import { ByteWriter, ParquetWriter } from 'hyparquet-writer';

export type ParquetColumnType = 'STRING' | 'DOUBLE' | 'TIMESTAMP';

export interface ParquetColumn {
  name: string;
  type: ParquetColumnType;
}

export type ParquetCodec = 'SNAPPY' | 'ZSTD' | 'UNCOMPRESSED';
export type Compressor = (input: Uint8Array) => Uint8Array;

/** hyparquet-writer's byte buffer, handing its bytes to a sink after each row group instead of keeping them. */
class SinkWriter extends ByteWriter {
  constructor(private readonly sink: (chunk: Buffer) => Promise<void>) {
    super(64 * 1024);
  }

  flush(): Promise<void> {
    const chunk = Buffer.from(new Uint8Array(this.buffer, 0, this.index));
    this.index = 0;
    return this.sink(chunk);
  }

  override finish(): Promise<void> {
    return this.flush();
  }
}

const schemaElement = ({ name, type }: ParquetColumn) => {
  if (type === 'STRING') return { name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' };
  if (type === 'TIMESTAMP') return { name, type: 'INT64', converted_type: 'TIMESTAMP_MILLIS', repetition_type: 'OPTIONAL' };
  return { name, type: 'DOUBLE', repetition_type: 'OPTIONAL' };
};

/**
 * Writes a Parquet file one row group at a time into a sink (a file, an HTTP response): only
 * the current row group is ever in memory. Row groups carry offset indexes, so a reader can
 * read them in slices.
 */
export class ParquetOutput {
  private readonly writer: ParquetWriter;

  constructor(
    private readonly columns: ParquetColumn[],
    sink: (chunk: Buffer) => Promise<void>,
    options: { codec?: ParquetCodec; compressors?: Partial<Record<ParquetCodec, Compressor>>; metadata?: Record<string, string> } = {},
  ) {
    this.writer = new ParquetWriter({
      writer: new SinkWriter(sink),
      schema: [{ name: 'root', num_children: columns.length }, ...columns.map(schemaElement)] as never,
      codec: options.codec ?? 'SNAPPY',
      compressors: options.compressors as never,
      kvMetadata: Object.entries(options.metadata ?? {}).map(([key, value]) => ({ key, value })),
      createdBy: 'corelite',
    });
  }

  /** One row group of the given rows (values: string, number, Date or null). */
  async writeRows(rows: Record<string, unknown>[]): Promise<void> {
    if (rows.length === 0) return;
    const columnData = this.columns.map(({ name }) => ({ name, data: rows.map((row) => row[name] ?? null) }));
    await this.writer.write({ columnData, rowGroupSize: rows.length });
  }

  async finish(): Promise<void> {
    await this.writer.finish();
  }
}
