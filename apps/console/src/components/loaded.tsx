import type { ComponentChildren } from 'preact';
import { loadView } from './load-state';
import { Card, Empty, ErrorBox, Loading } from './states';
import type { ApiState } from './use-api';

/** The empty state of a loader: a title, a hint, and whether it stands alone in a card. */
export interface EmptyState<T> {
  title: string;
  body?: ComponentChildren;
  /** What counts as empty; an empty list, a page of no items, or no answer otherwise. */
  when?: (data: T) => boolean;
  card?: boolean;
}

/**
 * What `useApi` loads, shown one way on every page: a spinner before the first answer, the API's
 * problem (with a retry), the empty state, or `children` with the data (kept while it reloads).
 */
export function Loaded<T>({
  state,
  label,
  empty,
  children,
}: {
  state: ApiState<T>;
  label?: string;
  empty?: EmptyState<T>;
  children: (data: NonNullable<T>) => ComponentChildren;
}) {
  const view = loadView(state, empty ? empty.when : false);
  if (view.kind === 'loading') return <Loading label={label} />;
  if (view.kind === 'error') return <ErrorBox error={view.error} onRetry={state.reload} />;
  if (view.kind === 'empty' && empty) {
    const shown = <Empty title={empty.title}>{empty.body}</Empty>;
    return empty.card ? <Card>{shown}</Card> : shown;
  }
  return view.data === undefined || view.data === null ? null : <>{children(view.data as NonNullable<T>)}</>;
}
