import { useRef, useState } from 'preact/hooks';

/**
 * PUTs a file straight to a pre-signed object-store URL (no token; the URL is the credential),
 * reporting progress. XMLHttpRequest, because fetch reports no upload progress.
 */
export function putWithProgress(url: string, file: File, onProgress: (fraction: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('PUT', url);
    request.upload.onprogress = (event) => event.lengthComputable && onProgress(event.loaded / event.total);
    request.onload = () =>
      request.status >= 200 && request.status < 300 ? resolve() : reject(new Error(`the object store answered ${request.status}`));
    request.onerror = () =>
      reject(new Error('the object store could not be reached (is it reachable from this browser, with CORS allowing this origin?)'));
    request.send(file);
  });
}

/**
 * Drag a file here, or choose one (keyboard: the zone is a button that opens the file picker).
 * With `multiple`, every file dropped or chosen is handed over at once.
 */
export function DropZone({
  id,
  accept,
  label,
  hint,
  disabled,
  multiple,
  onFiles,
}: {
  id: string;
  accept: string;
  label: string;
  hint?: string;
  disabled?: boolean;
  multiple?: boolean;
  onFiles: (files: File[]) => void;
}) {
  const take = (list: FileList | null | undefined) => {
    const files = [...(list ?? [])].slice(0, multiple ? undefined : 1);
    if (files.length && !disabled) onFiles(files);
  };
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  return (
    <div
      class={`dropzone ${over ? 'over' : ''}`}
      data-testid={`${id}-dropzone`}
      role="button"
      tabIndex={disabled ? -1 : 0}
      aria-disabled={disabled}
      aria-describedby={`${id}-hint`}
      onClick={() => !disabled && input.current?.click()}
      onKeyDown={(event) => (event.key === 'Enter' || event.key === ' ') && !disabled && (event.preventDefault(), input.current?.click())}
      onDragOver={(event) => {
        event.preventDefault();
        if (!disabled) setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(event) => {
        event.preventDefault();
        setOver(false);
        take(event.dataTransfer?.files);
      }}
    >
      <svg aria-hidden="true" viewBox="0 0 24 24" width="28" height="28" fill="none" stroke="currentColor" stroke-width="1.8">
        <path d="M12 16V4m0 0l-4 4m4-4l4 4M4 16v3a1 1 0 0 0 1 1h14a1 1 0 0 0 1-1v-3" />
      </svg>
      <strong>{label}</strong>
      <span class="muted small" id={`${id}-hint`}>
        {hint}
      </span>
      <input
        ref={input}
        id={`${id}-file`}
        type="file"
        accept={accept}
        hidden
        disabled={disabled}
        multiple={multiple}
        onChange={(event) => {
          take((event.target as HTMLInputElement).files);
          (event.target as HTMLInputElement).value = '';
        }}
      />
    </div>
  );
}

export function Progress({ label, fraction, tone = 'busy' }: { label: string; fraction: number; tone?: 'busy' | 'ok' | 'bad' }) {
  const value = Math.round(Math.min(Math.max(fraction, 0), 1) * 100);
  return (
    <div class="upload-progress">
      <div class="inline" style={{ justifyContent: 'space-between' }}>
        <span>{label}</span>
        <span class="muted">{value}%</span>
      </div>
      <div class="meter" role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={value} aria-label={label}>
        <span class={tone} style={{ width: `${value}%` }} />
      </div>
    </div>
  );
}
