import type { ApiError } from '../api/problem';
import { markAt, submitsOnKey } from './expression';

/**
 * A text field for an expression of the product's language. When the API answered
 * INVALID_EXPRESSION, the text is shown again below with the character at the error's position
 * marked, next to the API's message.
 */
export function ExpressionInput({
  id,
  label,
  value,
  onInput,
  error,
  placeholder,
  hint,
  onEnter,
}: {
  id: string;
  label: string;
  value: string;
  onInput: (value: string) => void;
  error?: ApiError;
  placeholder?: string;
  hint?: string;
  onEnter?: () => void;
}) {
  const position = error?.position;
  const invalid = position !== undefined;
  const echo = invalid ? markAt(value, position) : undefined;
  return (
    <div class={`field expression ${invalid ? 'invalid' : ''}`}>
      <label for={id}>{label}</label>
      <input
        id={id}
        class="mono"
        type="text"
        spellcheck={false}
        autocomplete="off"
        value={value}
        placeholder={placeholder}
        aria-invalid={invalid}
        aria-describedby={`${id}-help`}
        onInput={(event) => onInput((event.target as HTMLInputElement).value)}
        onKeyDown={(event) => submitsOnKey(event.key, event.isComposing) && onEnter?.()}
      />
      <div id={`${id}-help`} aria-live="polite">
        {echo ? (
          <div class="expression-error" data-testid="expression-error" data-position={position}>
            <code class="expression-echo">
              {echo.before}
              <mark>{echo.marked}</mark>
              {echo.after}
            </code>
            <span>
              {error!.detail} <span class="muted">(position {position})</span>
            </span>
          </div>
        ) : (
          hint && <span class="muted small">{hint}</span>
        )}
      </div>
    </div>
  );
}
