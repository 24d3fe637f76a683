import type { ComponentChildren, JSX } from 'preact';
import { useMemo, useState } from 'preact/hooks';
import type { ApiError } from '../api/problem';
import { saveBlob } from '../api/save';
import { Empty, ErrorBox } from './states';
import { alignOf, type Column, csvFileName, formatValue, isSortable, nextSort, type RowScope, type Sort, sortRows, toCsv } from './table';

export type { Column } from './table';

interface TableProps<R> {
  rows: readonly R[];
  columns: readonly Column<R>[];
  rowKey: (row: R) => string;
  /** The accessible name of the table's scrolling region. */
  label: string;
  testId?: string;
  dense?: boolean;
  caption?: ComponentChildren;
  /** Offers "Download CSV" of the rows as shown, saved as `<csv>.csv`. */
  csv?: string;
  empty?: { title: string; body?: ComponentChildren };
  rowProps?: (row: R) => JSX.HTMLAttributes<HTMLTableRowElement> & Record<`data-${string}`, string | undefined>;
  /** The content of a row's detail row, shown while the row is expanded (`scope.toggle`). */
  detail?: (row: R) => ComponentChildren;
  /** A total line: one entry per column. */
  footer?: ComponentChildren[];
  maxHeight?: string;
}

const cellClass = (column: Column<never>) =>
  [alignOf(column) === 'end' ? 'num' : '', column.actions ? 'actions' : '', column.class ?? ''].filter(Boolean).join(' ') || undefined;

function HeaderCell<R>({ column, sort, onSort }: { column: Column<R>; sort?: Sort; onSort: (sort: Sort | undefined) => void }) {
  const sorted = sort?.key === column.key ? sort.direction : undefined;
  return (
    <th scope="col" class={cellClass(column as Column<never>)} aria-sort={sorted}>
      {column.actions ? (
        <span class="muted">{column.header}</span>
      ) : isSortable(column as Column<never>) ? (
        <button type="button" class="sort" onClick={() => onSort(nextSort(sort, column))}>
          {column.header}
          <span class="sort-mark" aria-hidden="true">
            {sorted === 'ascending' ? '▲' : sorted === 'descending' ? '▼' : '↕'}
          </span>
        </button>
      ) : (
        column.header
      )}
    </th>
  );
}

function Row<R>({
  row,
  columns,
  rowProps,
  detail,
}: {
  row: R;
  columns: readonly Column<R>[];
  rowProps?: TableProps<R>['rowProps'];
  detail?: TableProps<R>['detail'];
}) {
  const [expanded, setExpanded] = useState(false);
  const [problem, report] = useState<ApiError>();
  const scope: RowScope = { expanded, toggle: () => setExpanded((open) => !open), report: (next) => report(next) };
  const more = expanded && detail ? detail(row) : undefined;
  return (
    <>
      <tr {...rowProps?.(row)}>
        {columns.map((column) => {
          const Tag = column.rowHeader ? 'th' : 'td';
          const value = column.cell ? undefined : column.value?.(row);
          const content = column.cell ? (
            column.cell(row, scope)
          ) : value === undefined || value === null || value === '' ? (
            <span class="muted">—</span>
          ) : (
            formatValue(value, column.format, column.currency?.(row), column.digits)
          );
          return (
            <Tag
              key={column.key}
              scope={column.rowHeader ? 'row' : undefined}
              class={cellClass(column as Column<never>)}
              data-testid={column.testId?.(row)}
            >
              {content}
            </Tag>
          );
        })}
      </tr>
      {problem && (
        <tr>
          <td colSpan={columns.length}>
            <ErrorBox error={problem} />
          </td>
        </tr>
      )}
      {more && (
        <tr>
          <td colSpan={columns.length}>{more}</td>
        </tr>
      )}
    </>
  );
}

/**
 * A table of rows under declared columns: values formatted by format.ts and aligned by kind,
 * sortable by a click on a header (aria-sort tells which), optionally downloadable as CSV (built
 * here, in the order and columns shown), with an empty state when there are no rows.
 */
export function DataTable<R>({
  rows,
  columns,
  rowKey,
  label,
  testId,
  dense,
  caption,
  csv,
  empty,
  rowProps,
  detail,
  footer,
  maxHeight,
}: TableProps<R>) {
  const [sort, setSort] = useState<Sort>();
  const shown = useMemo(() => sortRows(rows, columns, sort), [rows, columns, sort]);
  if (rows.length === 0 && empty) return <Empty title={empty.title}>{empty.body}</Empty>;
  const download = () => saveBlob(new Blob(['\uFEFF', toCsv(columns, shown)], { type: 'text/csv;charset=utf-8' }), csvFileName(csv!));
  return (
    <div class="data-table">
      {csv && (
        <div class="table-tools">
          <button type="button" class="button ghost small" onClick={download}>
            Download CSV
          </button>
        </div>
      )}
      <div class="table-scroll" role="region" tabIndex={0} aria-label={label} style={maxHeight ? { maxHeight } : undefined}>
        <table class={dense ? 'table dense' : 'table'} data-testid={testId}>
          {caption && <caption class="muted small">{caption}</caption>}
          <thead>
            <tr>
              {columns.map((column) => (
                <HeaderCell key={column.key} column={column} sort={sort} onSort={setSort} />
              ))}
            </tr>
          </thead>
          <tbody>
            {shown.map((row) => (
              <Row key={rowKey(row)} row={row} columns={columns} rowProps={rowProps} detail={detail} />
            ))}
          </tbody>
          {footer && (
            <tfoot>
              <tr>
                {footer.map((content, index) =>
                  index === 0 ? (
                    <th scope="row" key={index}>
                      {content}
                    </th>
                  ) : (
                    <td key={index} class={columns[index] && cellClass(columns[index] as Column<never>)}>
                      {content}
                    </td>
                  ),
                )}
              </tr>
            </tfoot>
          )}
        </table>
      </div>
    </div>
  );
}
