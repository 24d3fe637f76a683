import type { ComponentChildren } from 'preact';
import type { ApiError } from '../api/problem';

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div class="state loading" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" />
      {label}
    </div>
  );
}

/** A problem of the API: its title, its `detail` as the server wrote it, its code and the request's id. */
export function ErrorBox({ error, onRetry }: { error: ApiError; onRetry?: () => void }) {
  return (
    <div class="state error" role="alert">
      <strong>{error.heading}</strong>
      <p>{error.message}</p>
      {error.code && (
        <p class="muted small">
          Code: {error.code}
          {error.requestId && (
            <>
              {' · '}Request id: <span class="mono">{error.requestId}</span>
            </>
          )}
        </p>
      )}
      {onRetry && (
        <button type="button" class="button secondary" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="state empty" data-testid="empty-state">
      <svg aria-hidden="true" viewBox="0 0 48 48" width="40" height="40">
        <rect x="6" y="10" width="36" height="28" rx="4" fill="none" stroke="currentColor" stroke-width="2" />
        <path d="M12 30l8-8 6 6 10-10" fill="none" stroke="currentColor" stroke-width="2" />
      </svg>
      <strong>{title}</strong>
      {children && <div class="muted">{children}</div>}
    </div>
  );
}

export function Card({
  title,
  actions,
  children,
  class: extra,
}: {
  title?: ComponentChildren;
  actions?: ComponentChildren;
  children: ComponentChildren;
  class?: string;
}) {
  return (
    <section class={`card ${extra ?? ''}`}>
      {(title || actions) && (
        <header class="card-header">
          {title && <h2>{title}</h2>}
          {actions && <div class="card-actions">{actions}</div>}
        </header>
      )}
      {children}
    </section>
  );
}

/** The status of an upload or a job, as a coloured badge. */
export function StatusBadge({ status }: { status: string }) {
  const tone = /enriched|imported|succeeded|completed$/.test(status)
    ? 'ok'
    : /failed|terminated/.test(status)
      ? 'bad'
      : /errors/.test(status)
        ? 'warn'
        : /enriching|importing|running|queued|uploaded/.test(status)
          ? 'busy'
          : 'idle';
  return <span class={`badge ${tone}`}>{status.replace(/_/g, ' ')}</span>;
}
