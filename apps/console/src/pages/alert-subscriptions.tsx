import { useState } from 'preact/hooks';
import { costasset, unwrap } from '../api/client';
import type { Budget, NotificationChannel, Subscription, SubscriptionRequest } from '../api/types';
import { type Column, DataTable } from '../components/data-table';
import { ConfirmButton, SelectField, TextField } from '../components/forms';
import { Loaded } from '../components/loaded';
import { Card, ErrorBox } from '../components/states';
import { useAction, useApi } from '../components/use-api';
import { channelNames, subscriptionTopic } from './alerts-logic';

function SubscriptionForm({
  subscription,
  channels,
  budgets,
  onSaved,
  onCancel,
}: {
  subscription?: Subscription;
  channels: NotificationChannel[];
  budgets: Budget[];
  onSaved: () => void;
  onCancel: () => void;
}) {
  const [name, setName] = useState(subscription?.name ?? '');
  const [topic, setTopic] = useState<SubscriptionRequest['topic']>(subscription?.topic ?? 'budget');
  const [budgetId, setBudgetId] = useState(subscription?.budgetId ?? '');
  const [chosen, setChosen] = useState<string[]>(subscription?.channelIds ?? (channels.length === 1 ? [channels[0].id] : []));
  const save = useAction(() => {
    const body = { name, topic, channelIds: chosen };
    const budget = topic === 'budget' && budgetId ? budgetId : undefined;
    return subscription
      ? unwrap(
          costasset.PATCH('/api/costasset/v1/notificationSubscriptions/{id}', {
            params: { path: { id: subscription.id } },
            body: { ...body, budgetId: budget ?? null },
          }),
        )
      : unwrap(
          costasset.POST('/api/costasset/v1/notificationSubscriptions', { body: { ...body, ...(budget ? { budgetId: budget } : {}) } }),
        );
  });
  const toggle = (id: string) => setChosen(chosen.includes(id) ? chosen.filter((one) => one !== id) : [...chosen, id]);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (await save.run()) onSaved();
  };
  return (
    <form onSubmit={submit} aria-label={subscription ? 'Edit subscription' : 'New subscription'}>
      <div class="form-grid">
        <TextField id="subscription-name" label="Name" value={name} onValue={setName} required />
        <SelectField
          id="subscription-topic"
          label="Topic"
          value={topic}
          onValue={(value) => setTopic(value as SubscriptionRequest['topic'])}
          options={[
            ['budget', 'Budget alerts'],
            ['anomalies', 'Cost anomalies'],
          ]}
        />
        {topic === 'budget' && (
          <SelectField
            id="subscription-budget"
            label="Budget"
            value={budgetId}
            onValue={setBudgetId}
            options={[['', 'Every budget'], ...budgets.map((budget) => [budget.id, budget.name] as const)]}
          />
        )}
        <fieldset class="wide checks">
          <legend>Channels</legend>
          {channels.map((channel) => (
            <label key={channel.id} class="checkbox">
              <input type="checkbox" checked={chosen.includes(channel.id)} onChange={() => toggle(channel.id)} />
              {channel.name} <span class="muted small">({channel.type})</span>
            </label>
          ))}
        </fieldset>
      </div>
      {save.error && <ErrorBox error={save.error} />}
      <div class="form-actions">
        <button class="button primary" type="submit" disabled={save.busy || chosen.length === 0}>
          {save.busy ? 'Saving…' : subscription ? 'Save subscription' : 'Create subscription'}
        </button>
        <button class="button secondary" type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** Which channels hear budget alerts (of one budget or all) and anomalies. */
export function Subscriptions({ channels }: { channels: NotificationChannel[] }) {
  const [editing, setEditing] = useState<string | undefined>();
  const list = useApi(
    () => unwrap(costasset.GET('/api/costasset/v1/notificationSubscriptions', { params: { query: { limit: 1000 } } })),
    [],
  );
  const budgets = useApi(() => unwrap(costasset.GET('/api/costasset/v1/budgetController/budgets')), []);
  const remove = useAction((id: string) =>
    unwrap(costasset.DELETE('/api/costasset/v1/notificationSubscriptions/{id}', { params: { path: { id } } })),
  );
  const budgetList = budgets.data ?? [];
  const columns: Column<Subscription>[] = [
    { key: 'name', header: 'Name', value: (subscription) => subscription.name, rowHeader: true },
    { key: 'topic', header: 'Hears', value: (subscription) => subscriptionTopic(subscription, budgetList) },
    { key: 'channels', header: 'Channels', value: (subscription) => channelNames(subscription.channelIds, channels) },
    {
      key: 'actions',
      header: 'Actions',
      actions: true,
      cell: (subscription) => (
        <>
          <button type="button" class="button ghost small" onClick={() => setEditing(subscription.id)}>
            Edit
          </button>
          <ConfirmButton
            label="Delete"
            confirmLabel={`Delete ${subscription.name}`}
            busy={remove.busy}
            onConfirm={async () => (await remove.run(subscription.id), list.reload())}
          />
        </>
      ),
    },
  ];
  const add = channels.length > 0 && !editing && (
    <button type="button" class="button secondary" onClick={() => setEditing('new')}>
      New subscription
    </button>
  );
  const edited = list.data?.items.find((one) => one.id === editing);
  return (
    <Card title="Subscriptions" actions={add}>
      {editing && (
        <SubscriptionForm
          key={editing}
          subscription={edited}
          channels={channels}
          budgets={budgetList}
          onCancel={() => setEditing(undefined)}
          onSaved={() => (setEditing(undefined), list.reload())}
        />
      )}
      {remove.error && <ErrorBox error={remove.error} />}
      <Loaded
        state={list}
        empty={{
          title: 'No subscriptions yet',
          body: channels.length
            ? 'Subscribe a channel to budget alerts or to anomalies: nothing is sent until one is.'
            : 'Create a channel first, then subscribe it to budget alerts or to anomalies.',
          when: (page) => !page?.items.length,
        }}
      >
        {(page) => (
          <DataTable label="Subscriptions" testId="subscription-list" rows={page.items} columns={columns} rowKey={(one) => one.id} />
        )}
      </Loaded>
    </Card>
  );
}
