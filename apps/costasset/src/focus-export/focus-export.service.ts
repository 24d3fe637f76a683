import { Readable } from 'node:stream';
import { Injectable, Logger } from '@nestjs/common';
import type { Principal } from '@lib/auth';
import { csvRecord } from '@lib/csv';
import { CostLineItemRepository } from '../line-items/line-items.repository';
import { LineItemsService } from '../line-items/line-items.service';
import type { CostLineItem } from '../line-items/schemas/cost-line-item.schema';
import { ParquetOutput } from './parquet-output';
import { ExportFocusQuery } from './focus-export.dto';
import { csvCell, EXPORT_VERSION, exportLayout, ExportLayout, parquetColumnsOf, toFocusRow } from './focus-export.rows';

const ROW_GROUP_ROWS = 10_000;
const MAX_CUSTOM_COLUMNS = 200;

export interface FocusExport {
  stream: Readable;
  fileName: string;
  contentType: string;
}

/**
 * Line items as a FOCUS 1.2 file, CSV or Parquet, streamed from a database cursor: the same
 * selection as the line-items list (field filters, `expr`, the caller's visibility), never the
 * whole result in memory (CSV: one row at a time; Parquet: one row group of 10,000 rows).
 */
@Injectable()
export class FocusExportService {
  private readonly logger = new Logger('FocusExport');

  constructor(
    private readonly lineItems: LineItemsService,
    private readonly costs: CostLineItemRepository,
  ) {}

  async export(principal: Principal, query: ExportFocusQuery): Promise<FocusExport> {
    const filter = await this.lineItems.costFilterOf(principal, query);
    const names = await this.costs.aggregate<{ _id: string }>(principal.tenantId, [
      { $match: { ...filter, 'customColumns.0': { $exists: true } } },
      { $unwind: '$customColumns' },
      { $group: { _id: '$customColumns.name' } },
      { $sort: { _id: 1 } },
      { $limit: MAX_CUSTOM_COLUMNS },
    ]);
    const layout = exportLayout(names.map((entry) => entry._id).filter((name) => typeof name === 'string'));
    const items = this.costs.stream(principal.tenantId, filter);
    const format = query.format ?? 'csv';
    const stamp = new Date()
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d+Z$/, 'Z');
    const stream = Readable.from(format === 'parquet' ? this.parquet(items, layout) : this.csv(items, layout), { objectMode: false });
    stream.once('error', (error) => this.logger.error({ err: error.message }, 'FOCUS export stopped'));
    return {
      stream,
      fileName: `focus-${EXPORT_VERSION}-cost-line-items-${stamp}.${format === 'parquet' ? 'parquet' : 'csv'}`,
      contentType: format === 'parquet' ? 'application/vnd.apache.parquet' : 'text/csv; charset=utf-8',
    };
  }

  private async *csv(items: AsyncIterable<Partial<CostLineItem>>, layout: ExportLayout): AsyncGenerator<Buffer> {
    yield Buffer.from(csvRecord(layout.header, 'spreadsheet'));
    let lines: string[] = [];
    for await (const item of items) {
      const row = toFocusRow(item, layout);
      lines.push(
        csvRecord(
          layout.header.map((name) => csvCell(row[name])),
          'spreadsheet',
        ),
      );
      if (lines.length >= 500) {
        yield Buffer.from(lines.join(''));
        lines = [];
      }
    }
    if (lines.length) yield Buffer.from(lines.join(''));
  }

  private async *parquet(items: AsyncIterable<Partial<CostLineItem>>, layout: ExportLayout): AsyncGenerator<Buffer> {
    const chunks: Buffer[] = [];
    const output = new ParquetOutput(parquetColumnsOf(layout), async (chunk) => void chunks.push(chunk), {
      codec: 'SNAPPY',
      metadata: { FocusVersion: EXPORT_VERSION, DataGenerator: 'corelite' },
    });
    const drain = function* () {
      while (chunks.length) yield chunks.shift() as Buffer;
    };
    let group: Record<string, unknown>[] = [];
    for await (const item of items) {
      group.push(toFocusRow(item, layout));
      if (group.length >= ROW_GROUP_ROWS) {
        await output.writeRows(group);
        group = [];
        yield* drain();
      }
    }
    await output.writeRows(group);
    await output.finish();
    yield* drain();
  }
}
