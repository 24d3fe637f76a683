import { useState } from 'preact/hooks';
import { costasset, unwrap } from '../api/client';
import type { NotificationChannelWithSecret } from '../api/types';
import { SelectField, TextField } from '../components/forms';
import { ErrorBox } from '../components/states';
import { useAction } from '../components/use-api';
import { type ChannelForm, createRequest, FORMATS, updateRequest } from './alerts-logic';

/** A webhook's signing secret, shown once (after create or rotate): copy it now, it is never answered again. */
export function SecretOnce({ channel, onDone }: { channel: NotificationChannelWithSecret; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard?.writeText(channel.signingSecret ?? '').catch(() => undefined);
    setCopied(true);
  };
  return (
    <div class="secret-once" role="status" data-testid="signing-secret">
      <strong>Signing secret of {channel.name}</strong>
      <p>
        Copy it now and give it to the receiver, which checks each request's <code>corelite-signature</code> with it.{' '}
        <strong>You will not see it again</strong>: a new one can only be made by rotating it.
      </p>
      <div class="inline">
        <code class="secret-value" data-testid="signing-secret-value">
          {channel.signingSecret}
        </code>
        <button type="button" class="button secondary small" onClick={copy}>
          {copied ? 'Copied' : 'Copy'}
        </button>
        <button type="button" class="button primary small" onClick={onDone}>
          I have saved it
        </button>
      </div>
    </div>
  );
}

/** Creates or changes an email or webhook channel; a webhook's URL and secret are write-only (left empty, they are kept). */
export function ChannelEditor({
  id,
  initial,
  onSaved,
  onCancel,
}: {
  id?: string;
  initial: ChannelForm;
  onSaved: (channel: NotificationChannelWithSecret) => void;
  onCancel: () => void;
}) {
  const [form, setForm] = useState(initial);
  const set = (changes: Partial<ChannelForm>) => setForm({ ...form, ...changes });
  const save = useAction(() =>
    id
      ? unwrap(costasset.PATCH('/api/costasset/v1/notificationChannels/{id}', { params: { path: { id } }, body: updateRequest(form) }))
      : unwrap(costasset.POST('/api/costasset/v1/notificationChannels', { body: createRequest(form) })),
  );
  const submit = async (event: Event) => {
    event.preventDefault();
    const saved = await save.run();
    if (saved) onSaved(saved);
  };
  const webhook = form.type === 'webhook';
  return (
    <form onSubmit={submit} aria-label={id ? 'Edit channel' : 'New channel'}>
      <div class="form-grid">
        {!id && (
          <SelectField
            id="channel-type"
            label="Type"
            value={form.type}
            onValue={(type) => set({ type: type as ChannelForm['type'] })}
            options={[
              ['webhook', 'Webhook (JSON, Slack, Teams)'],
              ['email', 'Email'],
            ]}
          />
        )}
        <TextField id="channel-name" label="Name" value={form.name} onValue={(name) => set({ name })} required />
        {webhook ? (
          <>
            <SelectField
              id="channel-format"
              label="Format"
              value={form.format}
              onValue={(format) => set({ format: format as ChannelForm['format'] })}
              options={FORMATS}
            />
            <div class="wide">
              <TextField
                id="channel-url"
                label="Webhook URL"
                type="url"
                value={form.url}
                onValue={(url) => set({ url })}
                required={!id}
                placeholder="https://hooks.example.com/corelite"
                hint={
                  id
                    ? 'Leave empty to keep the current URL (it is stored sealed and never shown).'
                    : 'Stored sealed; only its origin is shown.'
                }
              />
            </div>
            <div class="wide">
              <TextField
                id="channel-secret"
                label="Signing secret (optional)"
                type="password"
                value={form.secret}
                onValue={(secret) => set({ secret })}
                hint={
                  id
                    ? 'Leave empty to keep the current secret, or rotate it from the list.'
                    : 'Leave empty and the server generates one, shown once after saving (24–256 characters if you give your own).'
                }
              />
            </div>
          </>
        ) : (
          <div class="wide">
            <TextField
              id="channel-recipients"
              label="Recipients"
              value={form.recipients}
              onValue={(recipients) => set({ recipients })}
              required
              placeholder="finops@example.com, cfo@example.com"
              hint="Email addresses separated by commas (up to 50)."
            />
          </div>
        )}
      </div>
      {save.error && <ErrorBox error={save.error} />}
      <div class="form-actions">
        <button class="button primary" type="submit" disabled={save.busy}>
          {save.busy ? 'Saving…' : id ? 'Save channel' : 'Create channel'}
        </button>
        <button class="button secondary" type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
