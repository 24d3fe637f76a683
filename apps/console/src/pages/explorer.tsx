import { useLocation } from 'preact-iso';
import { useEffect, useRef, useState } from 'preact/hooks';
import { costasset, download, unwrap } from '../api/client';
import type { Costs } from '../api/types';
import { noVisibilityReason, useMe } from '../auth/me';
import { splitProblem } from '../components/expression';
import { FocusExportButtons } from '../components/focus-export';
import { bucketLabel } from '../components/format';
import { Loaded } from '../components/loaded';
import { Page } from '../components/page';
import { Card, Empty, ErrorBox } from '../components/states';
import { useAction, useApi } from '../components/use-api';
import { groupingChoices } from './allocation-logic';
import { ExplorerControls } from './explorer-controls';
import { useOverlays } from './explorer-overlays';
import { Results } from './explorer-results';
import { apiQuery, exportQuery, monthOf, urlOf, type View, viewOf } from './explorer-view';

const TITLE = 'Cost explorer';
const SUBTITLE = 'Slice costs by provider, service, account, region or any tag, over months or days.';

export default function Explorer() {
  const me = useMe();
  const location = useLocation();
  const view = viewOf(location.query);
  const setView = (changes: Partial<View>) => location.route(urlOf({ ...view, ...changes }), true);
  const [filterDraft, setFilterDraft] = useState(view.filter);
  const [copied, setCopied] = useState(false);
  const lastGood = useRef<Costs>();

  // live validation: the filter is sent 400 ms after the last keystroke
  useEffect(() => {
    if (filterDraft === view.filter) return;
    const timer = setTimeout(() => setView({ filter: filterDraft }), 400);
    return () => clearTimeout(timer);
  }, [filterDraft]);

  // a user in no team may read nothing (the API says 403 TEAM_REQUIRED): the page says why instead
  const reason = noVisibilityReason(me);
  const costs = useApi(
    () => (reason ? Promise.resolve(undefined) : unwrap(costasset.GET('/api/costasset/v1/costs', { params: { query: apiQuery(view) } }))),
    [location.url],
  );
  const overlays = useOverlays(view, !reason);
  // a System Admin may group by every dimension and activated tag key (GET /allocation is theirs
  // only); others keep the built-in groupings and type a tag; without an answer, nothing is added
  const allocation = useApi(
    () => (me.is_system_admin ? unwrap(costasset.GET('/api/costasset/v1/allocation')).catch(() => undefined) : Promise.resolve(undefined)),
    [],
  );
  const choices = groupingChoices(allocation.data);
  if (costs.data) lastGood.current = costs.data;
  const problem = splitProblem(costs.error);
  // while the filter does not parse, the last good answer stays on screen
  const shown = costs.data ?? (problem.expression ? lastGood.current : undefined);
  const csv = useAction(() => {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(apiQuery(view))) query.set(key, Array.isArray(value) ? value.join(',') : String(value));
    query.set('format', 'csv');
    return download('/api/costasset/v1/costs', query);
  });
  const share = async () => {
    await navigator.clipboard
      ?.writeText(location.url.startsWith('http') ? location.url : `${window.location.origin}${location.url}`)
      .catch(() => undefined);
    setCopied(true);
    setTimeout(() => setCopied(false), 2000);
  };

  if (reason)
    return (
      <Page title={TITLE} subtitle={SUBTITLE}>
        <Card>
          <Empty title="No costs are visible to you">{reason}</Empty>
        </Card>
      </Page>
    );
  const actions = (
    <>
      <button type="button" class="button secondary" onClick={share}>
        {copied ? 'Link copied' : 'Copy link'}
      </button>
      <button type="button" class="button primary" onClick={() => csv.run()} disabled={csv.busy || !shown}>
        {csv.busy ? 'Preparing…' : 'Download CSV'}
      </button>
    </>
  );
  const range = costs.data && `${bucketLabel(monthOf(costs.data.from))} – ${bucketLabel(monthOf(costs.data.to))}`;
  return (
    <Page title={TITLE} subtitle={SUBTITLE} actions={actions}>
      {csv.error && <ErrorBox error={csv.error} />}
      {costs.data && costs.data.series.length > 0 && (
        <div class="explorer-export" data-testid="explorer-focus-export">
          <FocusExportButtons
            query={exportQuery(view.filter, costs.data)}
            label={`FOCUS export: the line items of ${range}${view.filter.trim() ? ' matching the filter' : ''}, as`}
          />
        </div>
      )}
      <ExplorerControls
        view={view}
        shown={shown}
        setView={setView}
        filterDraft={filterDraft}
        setFilterDraft={setFilterDraft}
        problem={problem.expression}
        choices={choices}
      />
      <Loaded state={{ ...costs, data: shown, error: problem.other }} label="Summing costs…">
        {(data) => (
          <Results
            shown={data}
            view={view}
            refreshing={costs.loading}
            forecast={overlays.forecast.data}
            anomalies={overlays.anomalies.data}
          />
        )}
      </Loaded>
    </Page>
  );
}
