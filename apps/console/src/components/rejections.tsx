import type { Upload } from '../api/types';

/** Rejected rows of an upload, each traced to its file, line and row `Id`, with every problem of the row. */
export function RejectedRows({ errors, testId }: { errors: Upload['errors']; testId: string }) {
  return (
    <div>
      <div class="muted small">Rejected rows and problems{errors.length >= 100 ? ' (the first 100)' : ''}:</div>
      <ul class="rejections" data-testid={testId}>
        {errors.map((error, index) => (
          <li key={index}>
            <code>
              {error.file || 'upload'}
              {error.line ? `:${error.line}` : ''}
              {error.id ? ` (${error.id})` : ''}
            </code>{' '}
            {error.reason}
          </li>
        ))}
      </ul>
    </div>
  );
}
