import { download } from '../api/client';
import type { FocusExportQuery } from '../api/types';
import { ErrorBox } from './states';
import { useAction } from './use-api';

/**
 * Downloads a selection of line items as a FOCUS 1.2 file (CSV or Parquet): the export takes the
 * line-items list's filters and `expr`, and the caller's visibility.
 */
export function FocusExportButtons({ query, label, disabled }: { query: FocusExportQuery; label: string; disabled?: boolean }) {
  const exporting = useAction((format: 'csv' | 'parquet') => {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries({ ...query, format })) if (value !== undefined) params.set(key, String(value));
    return download('/api/costasset/v1/costLineItems/export', params);
  });
  return (
    <>
      <div class="inline" role="group" aria-label={label}>
        <span class="muted small">{label}</span>
        <button type="button" class="button ghost small" disabled={disabled || exporting.busy} onClick={() => exporting.run('csv')}>
          {exporting.busy ? 'Preparing…' : 'FOCUS CSV'}
        </button>
        <button type="button" class="button ghost small" disabled={disabled || exporting.busy} onClick={() => exporting.run('parquet')}>
          FOCUS Parquet
        </button>
      </div>
      {exporting.error && <ErrorBox error={exporting.error} />}
    </>
  );
}
