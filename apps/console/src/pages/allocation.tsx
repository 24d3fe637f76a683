import { useRoute } from 'preact-iso';
import { useEffect } from 'preact/hooks';
import { costasset, unwrap } from '../api/client';
import type { AllocationSettings } from '../api/types';
import { useMe } from '../auth/me';
import { Page } from '../components/page';
import { Empty, ErrorBox, Loading } from '../components/states';
import { oneOf } from '../components/url-state';
import { type ApiState, useApi } from '../components/use-api';
import { Dimensions } from './allocation-dimensions';
import { Showback } from './allocation-showback';
import { SplitRulesSection } from './allocation-splits';
import { TagKeys } from './allocation-tags';

const TITLE = 'Allocation';
const SUBTITLE =
  'Tag keys rolled up for fast grouping, virtual dimensions whose rules give every line item a value, ' +
  'split rules that share common costs, and the monthly showback.';
const SECTIONS = [
  ['tags', 'Tag keys'],
  ['dimensions', 'Dimensions'],
  ['splits', 'Split rules'],
  ['showback', 'Showback'],
] as const;
/** How often the settings are asked again while the rollups are being recomputed. */
const POLL_MS = 1000;

/** Whether the rollups hold the current settings: asked again every second while they do not. */
function RollupsBadge({ settings }: { settings: ApiState<AllocationSettings> }) {
  const data = settings.data;
  if (!data) return settings.error ? null : <span class="badge idle">checking the rollups…</span>;
  return data.rollups.current ? (
    <span class="badge ok" role="status" data-testid="rollups-state" data-current="true">
      rollups up to date
    </span>
  ) : (
    <span
      class="badge busy"
      role="status"
      data-testid="rollups-state"
      data-current="false"
      title={data.rollups.jobId ? `Job ${data.rollups.jobId}` : undefined}
    >
      recomputing…
    </span>
  );
}

function Sections({ section }: { section: (typeof SECTIONS)[number][0] }) {
  const settings = useApi(() => unwrap(costasset.GET('/api/costasset/v1/allocation')), []);
  const recomputing = settings.data ? !settings.data.rollups.current : false;
  useEffect(() => {
    if (!recomputing || settings.loading) return;
    const timer = setTimeout(settings.reload, POLL_MS);
    return () => clearTimeout(timer);
  }, [recomputing, settings.loading, settings.data]);
  const currency = useApi(() => unwrap(costasset.GET('/api/costasset/v1/currency/defaultCurrency')), []);
  const corporate = currency.data?.defaultCurrency ?? 'USD';
  const tabs = (
    <nav class="tabs" aria-label="Allocation sections">
      {SECTIONS.map(([id, label]) => (
        <a key={id} href={id === 'tags' ? '/allocation' : `/allocation/${id}`} aria-current={section === id ? 'page' : undefined}>
          {label}
        </a>
      ))}
    </nav>
  );
  return (
    <Page title={TITLE} subtitle={SUBTITLE} actions={<RollupsBadge settings={settings} />} toolbar={tabs} testId="allocation">
      {settings.error && <ErrorBox error={settings.error} onRetry={settings.reload} />}
      {section === 'tags' ? (
        <TagKeys settings={settings.data} onChanged={settings.reload} currency={corporate} />
      ) : section === 'dimensions' ? (
        <Dimensions onChanged={settings.reload} currency={corporate} />
      ) : !settings.data ? (
        // the choices of targets and dimensions come from the settings
        !settings.error && <Loading label="Reading the allocation settings…" />
      ) : section === 'splits' ? (
        <SplitRulesSection settings={settings.data} currency={corporate} />
      ) : (
        <Showback settings={settings.data} />
      )}
    </Page>
  );
}

/** System Admins only: the navigation hides it from others, and the API refuses them anyway. */
export default function Allocation() {
  const me = useMe();
  const { params } = useRoute();
  if (!me.is_system_admin)
    return (
      <Page title={TITLE}>
        <Empty title="Allocation is for System Admins">
          Ask a System Admin of your tenant to activate a tag key or define a dimension.
        </Empty>
      </Page>
    );
  return (
    <Sections
      section={oneOf(
        params.section,
        SECTIONS.map(([id]) => id),
        'tags',
      )}
    />
  );
}
