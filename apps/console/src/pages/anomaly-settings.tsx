import { useState } from 'preact/hooks';
import { costasset, unwrap } from '../api/client';
import type { AnomalySettings, AnomalySettingsRequest } from '../api/types';
import { TextField } from '../components/forms';
import { money, number, percent } from '../components/format';
import { Loaded } from '../components/loaded';
import { Card, ErrorBox } from '../components/states';
import { useAction, useApi } from '../components/use-api';

const FIELDS = [
  ['minImpact', 'Least impact', 'actual − expected, in the corporate currency'],
  ['minImpactRatio', 'Least impact ratio', 'impact as a share of the expected cost (0.1 = 10%)'],
  ['minScore', 'Least score', 'excess in robust standard deviations (1–100)'],
  ['windowDays', 'History window (days)', 'days each day is compared with (14–365)'],
] as const;

function SettingsForm({ settings, onSaved, onCancel }: { settings: AnomalySettings; onSaved: () => void; onCancel: () => void }) {
  const [form, setForm] = useState<Record<string, string>>(Object.fromEntries(FIELDS.map(([key]) => [key, String(settings[key])])));
  const save = useAction(() => {
    const body: AnomalySettingsRequest = Object.fromEntries(FIELDS.map(([key]) => [key, Number(form[key])]));
    return unwrap(costasset.PUT('/api/costasset/v1/anomalies/settings', { body }));
  });
  const submit = async (event: Event) => {
    event.preventDefault();
    if (await save.run()) onSaved();
  };
  return (
    <form onSubmit={submit} aria-label="Anomaly detection settings">
      <div class="form-grid">
        {FIELDS.map(([key, label, hint]) => (
          <TextField
            key={key}
            id={`anomaly-${key}`}
            label={label}
            type="number"
            step="any"
            min="0"
            value={form[key]}
            onValue={(value) => setForm({ ...form, [key]: value })}
            hint={hint}
            required
          />
        ))}
      </div>
      {save.error && <ErrorBox error={save.error} />}
      <div class="form-actions">
        <button class="button primary" type="submit" disabled={save.busy}>
          {save.busy ? 'Saving…' : 'Save settings'}
        </button>
        <button class="button secondary" type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** The tenant's detection thresholds; a System Admin changes them (later runs use them, records are not re-scored). */
export function AnomalySettingsCard({ admin, currency }: { admin: boolean; currency: string }) {
  const settings = useApi(() => unwrap(costasset.GET('/api/costasset/v1/anomalies/settings')), []);
  const [editing, setEditing] = useState(false);
  const edit = admin && !editing && (
    <button type="button" class="button ghost" onClick={() => setEditing(true)}>
      Change
    </button>
  );
  return (
    <Card title="Detection settings" actions={edit}>
      <Loaded state={settings}>
        {(current) =>
          editing ? (
            <SettingsForm
              settings={current}
              onCancel={() => setEditing(false)}
              onSaved={() => {
                setEditing(false);
                settings.reload();
              }}
            />
          ) : (
            <>
              <dl class="kv" data-testid="anomaly-settings">
                <dt>Least impact</dt>
                <dd>{money(current.minImpact, currency)}</dd>
                <dt>Least impact ratio</dt>
                <dd>{percent(current.minImpactRatio * 100, 0)} of the expected cost</dd>
                <dt>Least score</dt>
                <dd>{number(current.minScore)}</dd>
                <dt>History window</dt>
                <dd>
                  {current.windowDays} days (at least {current.minHistoryDays} before a series is scored)
                </dd>
              </dl>
              <p class="muted small">
                A day is an anomaly when all of these hold. {admin ? 'Later runs use a change; existing records are not re-scored.' : ''}
                {admin ? '' : 'A System Admin changes them.'}
              </p>
            </>
          )
        }
      </Loaded>
    </Card>
  );
}
