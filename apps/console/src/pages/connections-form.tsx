import { useState } from 'preact/hooks';
import { costasset, unwrap } from '../api/client';
import { SelectField, TextField } from '../components/forms';
import { ErrorBox } from '../components/states';
import { useAction } from '../components/use-api';
import {
  type AzureAuth,
  checkInWords,
  type Connection,
  type ConnectionCheck,
  type ConnectionForm,
  type ConnectionLayout,
  type ConnectionType,
  createRequest,
  credentialsProblem,
  LAYOUTS,
  layoutLabel,
  type ScheduleKind,
  testPlan,
  testRequest,
  TYPES,
  updateRequest,
} from './connections-logic';

/** What a test found: what a sync would import, or the first problem in the store's words and the objects the layout rejects. */
export function CheckResult({ check, stale }: { check: ConnectionCheck; stale?: boolean }) {
  return (
    <div
      class={check.ok ? 'success check-result' : 'state error check-result'}
      role="status"
      data-testid="check-result"
      data-ok={String(check.ok)}
    >
      <strong>{check.ok ? 'The connection works' : 'The connection does not work yet'}</strong>
      {stale && <span class="muted small"> (the settings changed since this test)</span>}
      {check.problem && (
        <p class="check-problem" data-testid="check-problem">
          {check.problem}
        </p>
      )}
      {/* a listing refused says nothing about objects */}
      {(check.ok || check.objects > 0) && <p data-testid="check-summary">{checkInWords(check)}</p>}
      {check.rejected.length > 0 && (
        <details open={!check.ok}>
          <summary>
            {check.rejected.length} object{check.rejected.length === 1 ? '' : 's'} the layout rejects
            {check.rejected.length >= 20 ? ' (the first 20)' : ''}
          </summary>
          <ul class="list-plain check-rejected" data-testid="check-rejected">
            {check.rejected.slice(0, 20).map((file) => (
              <li key={file.key}>
                <span class="mono">{file.key}</span>: {file.reason ?? 'rejected'}
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}

function Radios<T extends string>({
  legend,
  name,
  value,
  onValue,
  options,
}: {
  legend: string;
  name: string;
  value: T;
  onValue: (value: T) => void;
  options: readonly (readonly [T, string])[];
}) {
  return (
    <fieldset class="checks">
      <legend>{legend}</legend>
      {options.map(([option, label]) => (
        <label key={option} class="checkbox">
          <input type="radio" name={name} value={option} checked={value === option} onChange={() => onValue(option)} />
          {label}
        </label>
      ))}
    </fieldset>
  );
}

/**
 * Creates or changes a connection. The type and layout are chosen once; the credentials are
 * write-only (on edit, left empty they are kept). "Test" asks the API what a sync would find before
 * anything is saved; saving tests again, and a failed test's problem is shown as the API spells it.
 */
export function ConnectionEditor({
  original,
  initial,
  onSaved,
  onCancel,
}: {
  original?: Connection;
  initial: ConnectionForm;
  onSaved: (connection: Connection) => void;
  onCancel: () => void;
}) {
  const [form, setForm] = useState(initial);
  const [tested, setTested] = useState<{ check: ConnectionCheck; form: string }>();
  const set = (changes: Partial<ConnectionForm>) => setForm({ ...form, ...changes });
  const plan = testPlan(form, original);
  const test = useAction(async () => {
    const check =
      plan === 'stored' && original
        ? await unwrap(costasset.POST('/api/costasset/v1/connections/{id}/test', { params: { path: { id: original.id } } }))
        : await unwrap(costasset.POST('/api/costasset/v1/connections/test', { body: testRequest(form) }));
    setTested({ check, form: JSON.stringify(form) });
  });
  const save = useAction(() =>
    original
      ? unwrap(
          costasset.PATCH('/api/costasset/v1/connections/{id}', {
            params: { path: { id: original.id } },
            body: updateRequest(form, original),
          }),
        )
      : unwrap(costasset.POST('/api/costasset/v1/connections', { body: createRequest(form) })),
  );
  const incomplete = original ? credentialsProblem(form, original) : undefined;
  const submit = async (event: Event) => {
    event.preventDefault();
    if (incomplete) return;
    const saved = await save.run();
    if (saved) onSaved(saved);
  };
  const s3 = form.type === 's3';
  const kept = original ? 'Leave empty to keep the stored one (it is sealed and never shown).' : undefined;
  const layout = LAYOUTS.find((entry) => entry.id === form.layout);
  return (
    <form onSubmit={submit} aria-label={original ? 'Edit connection' : 'New connection'} data-testid="connection-form">
      <div class="form-grid">
        <TextField
          id="connection-name"
          label="Name"
          value={form.name}
          onValue={(name) => set({ name })}
          required
          placeholder="AWS payer account"
        />
        {original ? (
          <div class="field">
            <span class="label">Type and layout</span>
            <span>
              {original.type} · {layoutLabel(original.layout)}
            </span>
            <span class="muted small">They do not change: create another connection for another kind of export.</span>
          </div>
        ) : (
          <>
            <SelectField
              id="connection-type"
              label="Type"
              value={form.type}
              onValue={(type) =>
                set({
                  type: type as ConnectionType,
                  layout: type === 's3' ? form.layout : form.layout === 'aws-data-exports' ? 'azure-exports' : form.layout,
                })
              }
              options={TYPES}
            />
            <div class="field">
              <SelectField
                id="connection-layout"
                label="Layout"
                value={form.layout}
                onValue={(value) => set({ layout: value as ConnectionLayout })}
                options={LAYOUTS.map((entry) => [entry.id, entry.label] as const)}
              />
              <span class="muted small" data-testid="layout-help">
                {layout?.help}
              </span>
            </div>
          </>
        )}
      </div>

      <h3 class="form-section">Where the exports are</h3>
      <div class="form-grid">
        {s3 ? (
          <>
            <div class="wide">
              <TextField
                id="connection-endpoint"
                label="Endpoint (optional)"
                type="url"
                value={form.endpoint}
                onValue={(endpoint) => set({ endpoint })}
                placeholder="https://storage.googleapis.com"
                hint="The S3 API's URL. Leave empty for AWS (its regional endpoint)."
              />
            </div>
            <TextField
              id="connection-region"
              label="Region"
              value={form.region}
              onValue={(region) => set({ region })}
              required={!form.endpoint.trim()}
              placeholder="us-east-1"
            />
            <TextField
              id="connection-bucket"
              label="Bucket"
              value={form.bucket}
              onValue={(bucket) => set({ bucket })}
              required
              placeholder="billing-exports"
            />
          </>
        ) : (
          <>
            <div class="wide">
              <TextField
                id="connection-account-url"
                label="Account URL"
                type="url"
                value={form.accountUrl}
                onValue={(accountUrl) => set({ accountUrl })}
                required
                placeholder="https://contosobilling.blob.core.windows.net"
              />
            </div>
            <TextField
              id="connection-container"
              label="Container"
              value={form.container}
              onValue={(container) => set({ container })}
              required
              placeholder="exports"
            />
          </>
        )}
        <TextField
          id="connection-prefix"
          label="Prefix"
          value={form.prefix}
          onValue={(prefix) => set({ prefix })}
          placeholder="exports/"
          hint="The folder the exports are under; empty for the whole bucket."
        />
      </div>

      <h3 class="form-section">Credentials</h3>
      {original && (
        <p class="muted small" data-testid="credentials-kept">
          The stored credentials are kept unless you type new ones; new ones replace them whole. They are never shown.
        </p>
      )}
      <div class="form-grid">
        {s3 ? (
          <>
            <TextField
              id="connection-access-key"
              label="Access key id"
              value={form.accessKeyId}
              onValue={(accessKeyId) => set({ accessKeyId })}
              required
            />
            <TextField
              id="connection-secret-key"
              label="Secret access key"
              type="password"
              value={form.secretAccessKey}
              onValue={(secretAccessKey) => set({ secretAccessKey })}
              required={!original}
              hint={kept}
            />
          </>
        ) : (
          <>
            <div class="wide">
              <Radios<AzureAuth>
                legend="Sign in with"
                name="connection-azure-auth"
                value={form.azureAuth}
                onValue={(azureAuth) => set({ azureAuth })}
                options={[
                  ['sas-token', 'A SAS token (list and read)'],
                  ['account-key', 'The account name and key'],
                ]}
              />
            </div>
            {form.azureAuth === 'sas-token' ? (
              <div class="wide">
                <TextField
                  id="connection-sas-token"
                  label="SAS token"
                  type="password"
                  value={form.sasToken}
                  onValue={(sasToken) => set({ sasToken })}
                  required={!original}
                  hint={kept ?? 'A token of the container or account with list and read permissions.'}
                />
              </div>
            ) : (
              <>
                <TextField
                  id="connection-account-name"
                  label="Account name"
                  value={form.accountName}
                  onValue={(accountName) => set({ accountName })}
                  required
                />
                <TextField
                  id="connection-account-key"
                  label="Account key"
                  type="password"
                  value={form.accountKey}
                  onValue={(accountKey) => set({ accountKey })}
                  required={!original}
                  hint={kept}
                />
              </>
            )}
          </>
        )}
      </div>

      <h3 class="form-section">Schedule</h3>
      <div class="form-grid">
        <div class="wide">
          <Radios<ScheduleKind>
            legend="Sync"
            name="connection-schedule"
            value={form.scheduleKind}
            onValue={(scheduleKind) => set({ scheduleKind })}
            options={[
              ['none', 'Only when asked'],
              ['cron', 'On a cron schedule'],
              ['interval', 'Every few minutes or hours'],
            ]}
          />
        </div>
        {form.scheduleKind === 'cron' && (
          <>
            <TextField
              id="connection-cron"
              label="Cron expression"
              value={form.cron}
              onValue={(cron) => set({ cron })}
              required
              placeholder="0 6 * * *"
              hint="Five fields: minute hour day-of-month month day-of-week."
            />
            <TextField
              id="connection-timezone"
              label="Time zone"
              value={form.timezone}
              onValue={(timezone) => set({ timezone })}
              placeholder="UTC"
              hint="An IANA time zone, such as Europe/Paris."
            />
          </>
        )}
        {form.scheduleKind === 'interval' && (
          <TextField
            id="connection-interval"
            label="Minutes between syncs"
            type="number"
            min="15"
            step="1"
            value={form.intervalMinutes}
            onValue={(intervalMinutes) => set({ intervalMinutes })}
            required
            hint="15 to 44,640 (31 days); 1,440 is daily."
          />
        )}
        {!original && form.scheduleKind !== 'none' && (
          <label class="checkbox">
            <input type="checkbox" checked={form.enabled} onChange={() => set({ enabled: !form.enabled })} /> Start the schedule now
          </label>
        )}
      </div>

      {tested && <CheckResult check={tested.check} stale={tested.form !== JSON.stringify(form)} />}
      {test.error && <ErrorBox error={test.error} />}
      {plan === 'needs-secret' && (
        <p class="muted small" data-testid="test-needs-secret">
          To test changed settings, type the secret again; otherwise saving tests them with the stored credentials.
        </p>
      )}
      {incomplete && (
        <p class="field-error" role="alert">
          {incomplete}
        </p>
      )}
      {save.error && <ErrorBox error={save.error} />}
      <div class="form-actions">
        <button class="button secondary" type="button" disabled={test.busy || plan === 'needs-secret'} onClick={() => test.run()}>
          {test.busy ? 'Testing…' : plan === 'stored' ? 'Test stored settings' : 'Test'}
        </button>
        <button class="button primary" type="submit" disabled={save.busy || !!incomplete}>
          {save.busy ? 'Testing and saving…' : original ? 'Save connection' : 'Create connection'}
        </button>
        <button class="button ghost" type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
