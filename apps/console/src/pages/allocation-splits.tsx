import { useEffect, useState } from 'preact/hooks';
import { costasset, unwrap } from '../api/client';
import type { AllocationSettings, SplitMethod, SplitRules } from '../api/types';
import { bucketLabel } from '../components/format';
import { Loaded } from '../components/loaded';
import { Card, Empty, ErrorBox } from '../components/states';
import { useAction, useApi } from '../components/use-api';
import { groupingChoices, monthInput, moveRule, periodOfInput } from './allocation-logic';
import { SplitFlow } from './split-flow';
import {
  newSplitTarget,
  percentSum,
  SPLIT_METHODS,
  type SplitDraft,
  splitDraftOf,
  splitDraftProblem,
  type SplitField,
  type SplitProblem,
  splitProblemsOf,
  splitRulesRequest,
  type SplitTargetDraft,
} from './split-logic';

/** The values a target already has (the showback's lines of the latest month), offered as suggestions; none on any problem. */
const valueCache = new Map<string, Promise<string[]>>();
function knownValues(target: string): Promise<string[]> {
  if (!target) return Promise.resolve([]);
  let values = valueCache.get(target);
  if (!values) {
    values = unwrap(costasset.GET('/api/costasset/v1/allocation/showback', { params: { query: { dimension: target } } })).then(
      (statement) => statement.lines.flatMap((line) => (line.value === null ? [] : [line.value])),
      () => [],
    );
    valueCache.set(target, values);
  }
  return values;
}

function FieldProblem({ id, problem }: { id: string; problem?: SplitProblem }) {
  return problem ? (
    <span id={id} class="error-text small" role="alert" data-testid="split-problem" data-field={problem.field} data-target={problem.target}>
      {problem.message}
    </span>
  ) : null;
}

function TargetRow({
  rule,
  index,
  entry,
  fixed,
  problem,
  list,
  onChange,
  onRemove,
  removable,
}: {
  rule: number;
  index: number;
  entry: SplitTargetDraft;
  fixed: boolean;
  problem?: SplitProblem;
  list: string;
  onChange: (changes: Partial<SplitTargetDraft>) => void;
  onRemove: () => void;
  removable: boolean;
}) {
  const id = `split-${rule}-value-${index}`;
  const problemId = `${id}-problem`;
  return (
    <li class="split-target" data-testid={`split-${rule}-target-${index}`}>
      <div class="field">
        <label for={id}>Value {index + 1}</label>
        <input
          id={id}
          type="text"
          list={list}
          value={entry.value}
          placeholder="payments"
          aria-invalid={problem !== undefined}
          aria-describedby={problem ? problemId : undefined}
          onInput={(event) => onChange({ value: (event.target as HTMLInputElement).value })}
        />
      </div>
      {fixed && (
        <div class="field split-percent">
          <label for={`split-${rule}-percent-${index}`}>Percent</label>
          <input
            id={`split-${rule}-percent-${index}`}
            type="number"
            min="0"
            max="100"
            step="any"
            value={entry.percent}
            aria-invalid={problem !== undefined}
            onInput={(event) => onChange({ percent: (event.target as HTMLInputElement).value })}
          />
        </div>
      )}
      <button
        type="button"
        class="button danger small"
        aria-label={`Remove value ${index + 1} of split rule ${rule + 1}`}
        title="Remove"
        disabled={!removable}
        onClick={onRemove}
      >
        ✕
      </button>
      <FieldProblem id={problemId} problem={problem} />
    </li>
  );
}

function SplitCard({
  draft,
  index,
  count,
  choices,
  problems,
  onChange,
  onMove,
  onRemove,
}: {
  draft: SplitDraft;
  index: number;
  count: number;
  choices: [string, string][];
  problems: SplitProblem[];
  onChange: (change: (current: SplitDraft) => SplitDraft) => void;
  onMove: (by: number) => void;
  onRemove: () => void;
}) {
  const [values, setValues] = useState<string[]>([]);
  useEffect(() => {
    let current = true;
    void knownValues(draft.target).then((list) => current && setValues(list));
    return () => {
      current = false;
    };
  }, [draft.target]);
  const on = (field: SplitField) => problems.find((problem) => problem.field === field && problem.target === undefined);
  const whole = problems.find((problem) => problem.field === undefined);
  const set = (changes: Partial<SplitDraft>) => onChange((current) => ({ ...current, ...changes }));
  const setTarget = (at: number, changes: Partial<SplitTargetDraft>) =>
    onChange((current) => ({ ...current, targets: current.targets.map((entry, i) => (i === at ? { ...entry, ...changes } : entry)) }));
  const options = choices.some(([value]) => value === draft.target) || !draft.target ? choices : [...choices, [draft.target, draft.target]];
  const sum = percentSum(draft.targets);
  const list = `split-${index}-values`;
  const input = (field: 'name' | 'source') => ({
    id: `split-${index}-${field}`,
    'aria-invalid': on(field) !== undefined,
    'aria-describedby': on(field) ? `split-${index}-${field}-problem` : undefined,
  });
  return (
    <li class={`split-rule ${problems.length ? 'invalid' : ''}`} data-testid={`split-${index}`} data-name={draft.name}>
      <div class="split-head">
        <span class="rule-number" aria-hidden="true">
          {index + 1}
        </span>
        <div class="field split-name">
          <label for={`split-${index}-name`}>Split rule {index + 1}: name</label>
          <input
            {...input('name')}
            type="text"
            value={draft.name}
            placeholder="Support fees"
            onInput={(event) => set({ name: (event.target as HTMLInputElement).value })}
          />
          <FieldProblem id={`split-${index}-name-problem`} problem={on('name')} />
        </div>
        <div class="rule-buttons">
          <button
            type="button"
            class="button ghost small"
            aria-label={`Move split rule ${index + 1} up`}
            title="Move up"
            disabled={index === 0}
            onClick={() => onMove(-1)}
          >
            ↑
          </button>
          <button
            type="button"
            class="button ghost small"
            aria-label={`Move split rule ${index + 1} down`}
            title="Move down"
            disabled={index === count - 1}
            onClick={() => onMove(1)}
          >
            ↓
          </button>
          <button type="button" class="button danger small" aria-label={`Remove split rule ${index + 1}`} title="Remove" onClick={onRemove}>
            ✕
          </button>
        </div>
      </div>
      <div class="split-fields">
        <div class="field split-source">
          <label for={`split-${index}-source`}>Split the cost of</label>
          <input
            {...input('source')}
            class="mono"
            type="text"
            spellcheck={false}
            autocomplete="off"
            value={draft.source}
            placeholder="dimension('team') == 'shared'"
            onInput={(event) => set({ source: (event.target as HTMLInputElement).value })}
          />
          <FieldProblem id={`split-${index}-source-problem`} problem={on('source')} />
        </div>
        <div class="field">
          <label for={`split-${index}-target`}>among the values of</label>
          <select
            id={`split-${index}-target`}
            value={draft.target}
            aria-invalid={on('target') !== undefined}
            onChange={(event) => set({ target: (event.target as HTMLSelectElement).value })}
          >
            {!draft.target && <option value="">Choose…</option>}
            {options.map(([value, text]) => (
              <option key={value} value={value}>
                {text}
              </option>
            ))}
          </select>
          <FieldProblem id={`split-${index}-target-problem`} problem={on('target')} />
        </div>
        <div class="field">
          <label for={`split-${index}-method`}>by</label>
          <select
            id={`split-${index}-method`}
            value={draft.method}
            onChange={(event) => set({ method: (event.target as HTMLSelectElement).value as SplitMethod })}
          >
            {SPLIT_METHODS.map(([value, text]) => (
              <option key={value} value={value}>
                {text}
              </option>
            ))}
          </select>
          <FieldProblem id={`split-${index}-method-problem`} problem={on('method')} />
        </div>
      </div>
      <fieldset class="split-targets">
        <legend>Values that receive the cost</legend>
        <datalist id={list}>
          {values.map((value) => (
            <option key={value} value={value} />
          ))}
        </datalist>
        <ol class="split-target-list">
          {draft.targets.map((entry, at) => (
            <TargetRow
              key={entry.id}
              rule={index}
              index={at}
              entry={entry}
              fixed={draft.method === 'fixed'}
              problem={problems.find((problem) => problem.field === 'targets' && problem.target === at)}
              list={list}
              removable={draft.targets.length > 1}
              onChange={(changes) => setTarget(at, changes)}
              onRemove={() => onChange((current) => ({ ...current, targets: current.targets.filter((_, i) => i !== at) }))}
            />
          ))}
        </ol>
        <div class="rule-tools">
          <button
            type="button"
            class="button secondary small"
            onClick={() => onChange((current) => ({ ...current, targets: [...current.targets, newSplitTarget()] }))}
          >
            Add value
          </button>
          {draft.method === 'fixed' && (
            <span
              class={`badge ${Math.abs(sum - 100) < 1e-9 ? 'ok' : 'warn'}`}
              data-testid={`split-${index}-percent-sum`}
              data-sum={sum}
              role="status"
            >
              Sum: {sum}%{Math.abs(sum - 100) < 1e-9 ? '' : ' (must be 100%)'}
            </span>
          )}
          {draft.method === 'proportional' && (
            <span class="muted small">Each value gets a share as large as its own cost that month (after the rules above).</span>
          )}
          {draft.method === 'even' && <span class="muted small">Each value gets an equal part.</span>}
        </div>
        <FieldProblem id={`split-${index}-targets-problem`} problem={on('targets')} />
      </fieldset>
      <FieldProblem id={`split-${index}-problem`} problem={whole} />
    </li>
  );
}

/** The saved splits of a month as a flow diagram (the month and the dimension of the first rule's target). */
function FlowCard({ dimension, revision, currency }: { dimension: string; revision: number; currency: string }) {
  const [period, setPeriod] = useState('');
  const statement = useApi(
    () =>
      unwrap(costasset.GET('/api/costasset/v1/allocation/showback', { params: { query: { dimension, ...(period ? { period } : {}) } } })),
    [dimension, period, revision],
  );
  const month = (
    <div class="field">
      <label for="flow-period">Month</label>
      <input
        id="flow-period"
        type="month"
        value={monthInput(period || statement.data?.period)}
        onChange={(event) => setPeriod(periodOfInput((event.target as HTMLInputElement).value))}
      />
    </div>
  );
  return (
    <Card title="Where the cost goes" actions={month}>
      <Loaded state={statement} label="Splitting the month's cost…">
        {(data) => (
          <>
            <p class="muted small" data-testid="flow-period">
              {bucketLabel(data.period, true)}
              {!period && ' (the latest month with data)'}, as saved.
            </p>
            <SplitFlow splits={data.splits} currency={currency} period={data.period} />
          </>
        )}
      </Loaded>
    </Card>
  );
}

/** The editor of the whole ordered list, from what was saved (a new list on each save). */
function SplitEditor({
  saved,
  choices,
  onSaved,
}: {
  saved: SplitRules;
  choices: [string, string][];
  onSaved: (rules: SplitRules) => void;
}) {
  const [drafts, setDrafts] = useState(() => saved.rules.map((rule) => splitDraftOf(rule)));
  const [tried, setTried] = useState(false);
  const save = useAction(() =>
    unwrap(costasset.PUT('/api/costasset/v1/allocation/splitRules', { body: { rules: splitRulesRequest(drafts) } })),
  );
  const edit = (change: (current: SplitDraft[]) => SplitDraft[]) => {
    if (save.error) save.clear();
    setDrafts(change);
  };
  const local = splitDraftProblem(drafts);
  const { placed, unplaced } = splitProblemsOf(save.error, drafts);
  const problems = placed.length ? placed : tried && local ? [local] : [];
  const changed =
    JSON.stringify(splitRulesRequest(drafts)) !== JSON.stringify(splitRulesRequest(saved.rules.map((rule) => splitDraftOf(rule))));
  const defaultTarget = drafts[drafts.length - 1]?.target || choices[0]?.[0] || '';

  const submit = async (event: Event) => {
    event.preventDefault();
    setTried(true);
    if (local) return;
    const answer = await save.run();
    if (answer) onSaved(answer);
  };
  const add = () => edit((current) => [...current, splitDraftOf(undefined, defaultTarget)]);

  return (
    <form onSubmit={submit} aria-label="Split rules" data-testid="split-editor" noValidate>
      <p class="muted small">
        A split rule takes the cost its source expression matches (e.g. <code>{"serviceName == 'AWS Support (Business)'"}</code> or{' '}
        <code>{"dimension('team') == 'shared'"}</code>) and gives it to the values of a dimension or an activated tag key.{' '}
        <strong>Order matters:</strong> the rules run from the first to the last, and each takes the cost earlier rules gave too, so a rule
        may pass on what one above it gave; a rule may never take back what itself or a later rule gives. Billed line items never change:
        splits apply when allocated cost is read.
      </p>
      {drafts.length === 0 ? (
        <Empty title="No split rules yet">
          Add one to share a cost (support fees, a shared account, a shared team) among the values of a dimension.
        </Empty>
      ) : (
        <ol class="split-list" data-testid="split-rules">
          {drafts.map((draft, index) => (
            <SplitCard
              key={draft.id}
              draft={draft}
              index={index}
              count={drafts.length}
              choices={choices}
              problems={problems.filter((problem) => problem.rule === index)}
              onChange={(change) => edit((current) => current.map((entry, at) => (at === index ? change(entry) : entry)))}
              onMove={(by) => edit((current) => moveRule(current, index, by))}
              onRemove={() => edit((current) => current.filter((_, at) => at !== index))}
            />
          ))}
        </ol>
      )}
      <div class="rule-tools">
        <button type="button" class="button secondary small" onClick={add}>
          Add split rule
        </button>
      </div>
      {unplaced && <ErrorBox error={unplaced} />}
      <div class="form-actions">
        <button class="button primary" type="submit" disabled={save.busy || !changed} title={local?.message}>
          {save.busy ? 'Saving…' : 'Save split rules'}
        </button>
        <button
          class="button secondary"
          type="button"
          disabled={!changed || save.busy}
          onClick={() => {
            save.clear();
            setTried(false);
            setDrafts(saved.rules.map((rule) => splitDraftOf(rule)));
          }}
        >
          Discard changes
        </button>
        {changed && <span class="muted small">Unsaved changes.</span>}
        {tried && local && !placed.length && (
          <span class="error-text small" data-testid="split-blocker">
            Split rule {local.rule + 1}: {local.message}
          </span>
        )}
        {placed.length > 0 && (
          <span class="error-text small" data-testid="split-blocker">
            Split rule {placed[0].rule + 1}: {placed[0].message}
          </span>
        )}
      </div>
    </form>
  );
}

/** The tenant's split rules (one ordered list, saved whole) and the flow of the latest month's cost through them. */
export function SplitRulesSection({ settings, currency }: { settings: AllocationSettings; currency: string }) {
  const rules = useApi(() => unwrap(costasset.GET('/api/costasset/v1/allocation/splitRules')), []);
  const [saved, setSaved] = useState<{ answer: SplitRules; message: string }>();
  // what the last save answered, until a newer revision is read
  const current = saved && saved.answer.revision >= (rules.data?.revision ?? 0) ? saved.answer : rules.data;
  const choices = groupingChoices(settings);
  if (choices.length === 0)
    return (
      <Card>
        <Empty title="Create a dimension first">
          A split rule gives cost to the values of a dimension or an activated tag key.{' '}
          <a href="/allocation/dimensions">Create a dimension</a> (or activate a tag key) first.
        </Empty>
      </Card>
    );
  return (
    <>
      {saved && (
        <p class="success" role="status" data-testid="split-saved">
          {saved.message}
        </p>
      )}
      <Card title="Split rules">
        <Loaded state={{ ...rules, data: current }} label="Reading the split rules…">
          {(data) => (
            <SplitEditor
              key={data.revision}
              saved={data}
              choices={choices}
              onSaved={(answer) => {
                setSaved({
                  answer,
                  message:
                    `Saved ${answer.rules.length} split ${answer.rules.length === 1 ? 'rule' : 'rules'} (revision ${answer.revision}). ` +
                    'Nothing is recomputed: they apply whenever allocated cost is read.',
                });
              }}
            />
          )}
        </Loaded>
      </Card>
      {current && current.rules.length > 0 && (
        <FlowCard dimension={current.rules[0].target} revision={current.revision} currency={currency} />
      )}
    </>
  );
}
