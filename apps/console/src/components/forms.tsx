import type { ComponentChildren } from 'preact';

/** A labelled input; `onValue` receives the text. */
export function TextField({
  id,
  label,
  value,
  onValue,
  type = 'text',
  required,
  placeholder,
  hint,
  class: extra,
  ...rest
}: {
  id: string;
  label: string;
  value: string;
  onValue: (value: string) => void;
  type?: string;
  required?: boolean;
  placeholder?: string;
  hint?: ComponentChildren;
  class?: string;
  min?: string;
  step?: string;
  readOnly?: boolean;
}) {
  return (
    <div class={`field ${extra ?? ''}`}>
      <label for={id}>{label}</label>
      <input
        id={id}
        type={type}
        value={value}
        required={required}
        placeholder={placeholder}
        onInput={(event) => onValue((event.target as HTMLInputElement).value)}
        {...rest}
      />
      {hint && <span class="muted small">{hint}</span>}
    </div>
  );
}

export function SelectField({
  id,
  label,
  value,
  onValue,
  options,
}: {
  id: string;
  label: string;
  value: string;
  onValue: (value: string) => void;
  options: readonly (readonly [string, string])[];
}) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} value={value} onChange={(event) => onValue((event.target as HTMLSelectElement).value)}>
        {options.map(([option, text]) => (
          <option key={option} value={option}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}

/** `<input type="month">` (YYYY-MM) bound to a period (YYYYMM). */
export function PeriodField({ id, label, value, onValue }: { id: string; label: string; value: string; onValue: (value: string) => void }) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        type="month"
        required
        value={value.length === 6 ? `${value.slice(0, 4)}-${value.slice(4)}` : ''}
        onInput={(event) => onValue((event.target as HTMLInputElement).value.replace('-', ''))}
      />
    </div>
  );
}

/** A destructive action that asks once more, inline (no modal dialog to trap focus in). */
export function ConfirmButton({
  label,
  confirmLabel,
  onConfirm,
  busy,
}: {
  label: string;
  confirmLabel: string;
  onConfirm: () => void;
  busy?: boolean;
}) {
  return (
    <details class="confirm">
      <summary class="button danger small">{label}</summary>
      <button type="button" class="button danger small" disabled={busy} onClick={onConfirm}>
        {confirmLabel}
      </button>
    </details>
  );
}
