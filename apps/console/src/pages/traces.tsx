import { useState } from 'preact/hooks';
import { useMe } from '../auth/me';
import { type Column, DataTable } from '../components/data-table';
import { number } from '../components/format';
import { Loaded } from '../components/loaded';
import { Page } from '../components/page';
import { Card, Empty } from '../components/states';
import { useApi } from '../components/use-api';
import { durationLabel, recentTraces, timeLabel, type TraceSummary, traceSpans, type WaterfallRow, waterfallRows } from './traces-view';

const HOW_TO = (
  <>
    Start with <code>npm start -- --traces</code> to see local traces: the services then export their spans to a local receiver, which
    writes them to <code>.stack/dev/traces.jsonl</code> and keeps the latest for this page.
  </>
);

function traceColumns(selected: string | undefined, select: (traceId: string) => void): Column<TraceSummary>[] {
  return [
    {
      key: 'time',
      header: 'Time',
      value: (trace) => trace.startTime,
      cell: (trace) => <span class="mono">{timeLabel(trace.startTime)}</span>,
    },
    {
      key: 'root',
      header: 'Root span',
      rowHeader: true,
      value: (trace) => trace.name,
      cell: (trace) => (
        <button type="button" class="link-button" aria-pressed={trace.traceId === selected} onClick={() => select(trace.traceId)}>
          {trace.name}
        </button>
      ),
    },
    { key: 'service', header: 'Service', value: (trace) => trace.service },
    {
      key: 'duration',
      header: 'Duration',
      value: (trace) => trace.durationMs,
      align: 'end',
      cell: (trace) => durationLabel(trace.durationMs),
    },
    { key: 'spans', header: 'Spans', value: (trace) => trace.spanCount, format: 'number' },
    {
      key: 'error',
      header: 'Error',
      value: (trace) => (trace.error ? 'error' : ''),
      cell: (trace) => (trace.error ? <span class="badge bad">error</span> : <span class="muted">—</span>),
    },
  ];
}

function Waterfall({ rows }: { rows: WaterfallRow[] }) {
  return (
    <div class="table-scroll" role="region" tabIndex={0} aria-label="Spans of the trace">
      <table class="table dense waterfall" data-testid="trace-waterfall">
        <caption class="muted small">Each span under its parent; the bar shows when it ran within the trace.</caption>
        <thead>
          <tr>
            <th scope="col">Span</th>
            <th scope="col">Service</th>
            <th scope="col" class="num">
              Start
            </th>
            <th scope="col" class="num">
              Duration
            </th>
            <th scope="col" class="waterfall-timeline">
              Timeline
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.span.spanId} class={row.error ? 'waterfall-error' : undefined}>
              <th scope="row" style={{ paddingLeft: `${8 + row.depth * 16}px` }}>
                <span class="sr-only">{row.depth ? `level ${row.depth + 1}: ` : ''}</span>
                {row.span.name}
                {row.error && <span class="badge bad">error</span>}
              </th>
              <td>{row.span.service}</td>
              <td class="num">+{durationLabel(row.offsetMs)}</td>
              <td class="num">{durationLabel(row.durationMs)}</td>
              <td class="waterfall-timeline" aria-hidden="true">
                <span class="waterfall-bar" style={{ marginLeft: `${row.left}%`, width: `${row.width}%` }} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function TraceDetail({ traceId }: { traceId: string }) {
  const spans = useApi(() => traceSpans(traceId), [traceId]);
  return (
    <Card
      title={
        <>
          Trace <span class="mono">{traceId}</span>
        </>
      }
    >
      <Loaded
        state={spans}
        label="Loading the spans…"
        empty={{
          title: 'The receiver no longer keeps this trace',
          body: (
            <>
              Look it up in <code>.stack/dev/traces.jsonl</code>.
            </>
          ),
        }}
      >
        {(list) => <Waterfall rows={waterfallRows(list)} />}
      </Loaded>
    </Card>
  );
}

/** The local OTLP receiver's recent traces (System Admins, `npm start -- --traces`), and the waterfall of one. */
export default function Traces() {
  const me = useMe();
  const [selected, setSelected] = useState<string>();
  const traces = useApi(() => (me.is_system_admin ? recentTraces(50) : Promise.resolve(undefined)), [me.is_system_admin]);
  const columns = traceColumns(selected, setSelected);
  if (!me.is_system_admin)
    return (
      <Page title="Traces">
        <Empty title="Only System Admins see the local traces." />
      </Page>
    );
  return (
    <Page
      title="Traces"
      subtitle="The latest traces of this machine's services, from the local OTLP receiver."
      actions={
        <button type="button" class="button secondary" onClick={traces.reload} disabled={traces.loading}>
          Refresh
        </button>
      }
      testId="traces-page"
    >
      <div class="grid">
        <Loaded
          state={traces}
          label="Loading traces…"
          empty={{ title: 'No local traces here', body: HOW_TO, card: true, when: () => false }}
        >
          {(list) => (
            <Card title={`Recent traces (${number(list.length)})`}>
              <DataTable
                rows={list}
                columns={columns}
                rowKey={(trace) => trace.traceId}
                label="Recent traces"
                testId="traces-table"
                dense
                maxHeight="420px"
                rowProps={(trace) => ({ class: trace.traceId === selected ? 'selected' : undefined })}
                empty={{ title: 'No traces yet', body: 'Use the console or the API: their traces show here within seconds.' }}
              />
            </Card>
          )}
        </Loaded>
        {selected && <TraceDetail key={selected} traceId={selected} />}
      </div>
    </Page>
  );
}
