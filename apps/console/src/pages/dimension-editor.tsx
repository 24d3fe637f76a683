import { useEffect, useMemo, useState } from 'preact/hooks';
import { costasset, unwrap } from '../api/client';
import type { ApiError } from '../api/problem';
import type { Dimension, DimensionPreview } from '../api/types';
import { type Column, DataTable } from '../components/data-table';
import { markAt } from '../components/expression';
import { bucketLabel, money, number, percent } from '../components/format';
import { TextField } from '../components/forms';
import { ErrorBox, Loading } from '../components/states';
import { useAction } from '../components/use-api';
import {
  DEFAULT_VALUE,
  type DimensionDraft,
  draftOf,
  incompleteRules,
  monthInput,
  moveRule,
  nameProblem,
  newRule,
  periodOfInput,
  previewRequest,
  type RuleDraft,
  type RuleProblem,
  ruleProblemOf,
  ruleShares,
  saveRequest,
  shareOf,
} from './allocation-logic';

/** How long the editor waits after the last keystroke before it asks for a preview. */
const DEBOUNCE_MS = 400;

type ValueShare = DimensionPreview['values'][number];

const lineItems = (count: number) => `${number(count)} line ${count === 1 ? 'item' : 'items'}`;

interface PreviewState {
  data?: DimensionPreview;
  /** The ids of the rules the answer is about, in the order sent. */
  sent: number[];
  error?: ApiError;
  loading: boolean;
}

/**
 * The preview of a draft, asked 400 ms after its last change: cost and line items per rule, what
 * stays unallocated, per value; an INVALID_EXPRESSION is placed on its rule.
 */
function usePreview(draft: DimensionDraft, range: { from: string; to: string }) {
  const [state, setState] = useState<PreviewState>({ sent: [], loading: true });
  const [tick, setTick] = useState(0);
  const request = previewRequest(draft, range);
  const key = JSON.stringify(request.body);
  useEffect(() => {
    let current = true;
    const sent = request.sent.map((index) => draft.rules[index].id);
    setState((previous) => ({ ...previous, loading: true }));
    const timer = setTimeout(() => {
      unwrap(costasset.POST('/api/costasset/v1/allocation/dimensions/preview', { body: request.body })).then(
        (data) => current && setState({ data, sent, loading: false }),
        (error: ApiError) => current && setState({ data: undefined, sent, error, loading: false }),
      );
    }, DEBOUNCE_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [key, tick]);
  return { ...state, retry: () => setTick((value) => value + 1) };
}

function RuleError({ problem, text, index }: { problem: RuleProblem<number>; text: string; index: number }) {
  const echo = problem.position === undefined ? undefined : markAt(text, problem.position);
  return (
    <div
      id={`rule-error-${index}`}
      class="expression-error rule-error"
      data-testid="rule-error"
      data-rule={index}
      data-position={problem.position}
      role="alert"
    >
      {echo && (
        <code class="expression-echo">
          {echo.before}
          <mark>{echo.marked}</mark>
          {echo.after}
        </code>
      )}
      <span>
        Rule {index + 1}: {problem.message}
        {problem.position !== undefined && <span class="muted"> (position {problem.position})</span>}
      </span>
    </div>
  );
}

function RuleRow({
  rule,
  index,
  count,
  share,
  total,
  pending,
  problem,
  currency,
  onChange,
  onMove,
  onRemove,
}: {
  rule: RuleDraft;
  index: number;
  count: number;
  share?: { cost: number; lineItems: number };
  total?: number;
  pending: boolean;
  problem?: RuleProblem<number>;
  currency: string;
  onChange: (changes: Partial<RuleDraft>) => void;
  onMove: (by: number) => void;
  onRemove: () => void;
}) {
  const complete = rule.expr.trim() !== '' && rule.value.trim() !== '';
  return (
    <li class={`rule-row ${problem ? 'invalid' : ''}`} data-testid={`rule-${index}`}>
      <span class="rule-number" aria-hidden="true">
        {index + 1}
      </span>
      <div class="field rule-expr">
        <label for={`rule-expr-${index}`}>Rule {index + 1}: when</label>
        <input
          id={`rule-expr-${index}`}
          class="mono"
          type="text"
          spellcheck={false}
          autocomplete="off"
          value={rule.expr}
          placeholder="tag('default', 'env' == 'prod')"
          aria-invalid={problem !== undefined}
          aria-describedby={problem ? `rule-error-${index}` : undefined}
          onInput={(event) => onChange({ expr: (event.target as HTMLInputElement).value })}
        />
      </div>
      <div class="field rule-value">
        <label for={`rule-value-${index}`}>then the value is</label>
        <input
          id={`rule-value-${index}`}
          type="text"
          value={rule.value}
          placeholder="production"
          onInput={(event) => onChange({ value: (event.target as HTMLInputElement).value })}
        />
      </div>
      <div class="rule-share" data-testid={`rule-share-${index}`} data-pending={pending ? 'true' : undefined}>
        {share ? (
          <>
            <strong data-testid={`rule-cost-${index}`}>{money(share.cost, currency)}</strong>
            <span class="muted small" data-testid={`rule-items-${index}`}>
              {lineItems(share.lineItems)}
              {total ? ` · ${percent(shareOf(share.cost, total) * 100)}` : ''}
            </span>
          </>
        ) : (
          <span class="muted small">{complete ? (problem ? 'not previewed' : '…') : 'write an expression and a value'}</span>
        )}
      </div>
      <div class="rule-buttons">
        <button
          type="button"
          class="button ghost small"
          aria-label={`Move rule ${index + 1} up`}
          title="Move up"
          disabled={index === 0}
          onClick={() => onMove(-1)}
        >
          ↑
        </button>
        <button
          type="button"
          class="button ghost small"
          aria-label={`Move rule ${index + 1} down`}
          title="Move down"
          disabled={index === count - 1}
          onClick={() => onMove(1)}
        >
          ↓
        </button>
        <button type="button" class="button danger small" aria-label={`Remove rule ${index + 1}`} title="Remove" onClick={onRemove}>
          ✕
        </button>
      </div>
      {problem && <RuleError problem={problem} text={rule.expr} index={index} />}
    </li>
  );
}

function PreviewSummary({ preview, currency, defaultValue }: { preview: DimensionPreview; currency: string; defaultValue: string }) {
  const total = preview.total.cost;
  const columns = useMemo(
    (): Column<ValueShare>[] => [
      {
        key: 'value',
        header: 'Value',
        value: (share) => share.value,
        rowHeader: true,
        cell: (share) => (
          <>
            {share.value}
            {share.unallocated && (
              <>
                {' '}
                <span class="badge idle">default</span>
              </>
            )}
          </>
        ),
      },
      { key: 'cost', header: 'Cost', value: (share) => share.cost, format: 'money', currency: () => currency },
      { key: 'lineItems', header: 'Line items', value: (share) => share.lineItems, format: 'number' },
      { key: 'share', header: 'Share', value: (share) => shareOf(share.cost, total) * 100, format: 'percent' },
    ],
    [currency, total],
  );
  return (
    <>
      <div class="kpis preview-kpis">
        <div class="kpi">
          <div class="kpi-label">Allocated by the rules</div>
          <div class="kpi-value" data-testid="preview-allocated">
            {money(total - preview.unallocated.cost, currency)}
          </div>
          <div class="kpi-detail">
            {percent(shareOf(total - preview.unallocated.cost, total) * 100)} ·{' '}
            {lineItems(preview.total.lineItems - preview.unallocated.lineItems)}
          </div>
        </div>
        <div class="kpi">
          <div class="kpi-label">
            {(preview.unallocated.value || defaultValue) === DEFAULT_VALUE
              ? 'Unallocated'
              : `Unallocated (${preview.unallocated.value || defaultValue})`}
          </div>
          <div class="kpi-value" data-testid="preview-unallocated">
            {money(preview.unallocated.cost, currency)}
          </div>
          <div class="kpi-detail" data-testid="preview-unallocated-detail">
            {percent(shareOf(preview.unallocated.cost, total) * 100)} · {lineItems(preview.unallocated.lineItems)}
          </div>
        </div>
        <div class="kpi">
          <div class="kpi-label">Total</div>
          <div class="kpi-value" data-testid="preview-total">
            {money(total, currency)}
          </div>
          <div class="kpi-detail">{lineItems(preview.total.lineItems)}</div>
        </div>
      </div>
      <DataTable
        label="Cost per value"
        testId="preview-values"
        dense
        rows={preview.values}
        columns={columns}
        rowKey={(share) => share.value}
        rowProps={(share) => ({ 'data-value': share.value })}
      />
    </>
  );
}

/**
 * Creates or edits a dimension: name, description, ordered rules (expression and value, moved up
 * and down), default value; previewed live as it is written; saved with the version it was edited
 * from (a change saved meanwhile by someone else is a conflict, said so).
 */
export function DimensionEditor({
  initial,
  currency,
  onSaved,
  onCancel,
}: {
  initial: DimensionDraft;
  currency: string;
  onSaved: (dimension: Dimension) => void;
  onCancel: () => void;
}) {
  const [draft, setDraft] = useState(initial);
  const [range, setRange] = useState({ from: '', to: '' });
  const [rebased, setRebased] = useState<number>();
  const preview = usePreview(draft, range);
  const save = useAction(async () => {
    const request = saveRequest(draft);
    return request.create
      ? unwrap(costasset.POST('/api/costasset/v1/allocation/dimensions', { body: request.create }))
      : unwrap(
          costasset.PUT('/api/costasset/v1/allocation/dimensions/{name}', { params: { path: { name: draft.name } }, body: request.update }),
        );
  });
  const latest = useAction(() =>
    unwrap(costasset.GET('/api/costasset/v1/allocation/dimensions/{name}', { params: { path: { name: draft.name } } })),
  );
  const edit = (change: (current: DimensionDraft) => DimensionDraft) => {
    if (save.error) save.clear();
    setRebased(undefined);
    setDraft(change);
  };
  const set = (changes: Partial<DimensionDraft>) => edit((current) => ({ ...current, ...changes }));
  const setRule = (index: number, changes: Partial<RuleDraft>) =>
    edit((current) => ({ ...current, rules: current.rules.map((rule, at) => (at === index ? { ...rule, ...changes } : rule)) }));

  const isNew = initial.version === undefined;
  const conflict = save.error?.code === 'DIMENSION_VERSION_CONFLICT';
  const previewRule = ruleProblemOf(preview.error, preview.sent);
  const savedRule = ruleProblemOf(
    save.error,
    draft.rules.map((rule) => rule.id),
  );
  const problem = previewRule ?? savedRule;
  const previewProblem = preview.error && !previewRule ? preview.error : undefined;
  const saveProblem = save.error && !conflict && !savedRule ? save.error : undefined;
  const shares = preview.data ? ruleShares(preview.data, preview.sent) : undefined;
  const incomplete = incompleteRules(draft.rules);
  const invalidName = isNew ? nameProblem(draft.name.trim()) : undefined;
  const blocker = invalidName
    ? `Name: ${invalidName}`
    : incomplete.length
      ? `Rule ${incomplete[0] + 1} needs an expression and a value (or remove it).`
      : problem
        ? `Rule ${draft.rules.findIndex((rule) => rule.id === problem.rule) + 1} does not compile.`
        : undefined;

  const submit = async (event: Event) => {
    event.preventDefault();
    if (blocker) return;
    const saved = await save.run();
    if (saved) onSaved(saved);
  };
  const loadTheirs = async () => {
    const dimension = await latest.run();
    if (dimension) {
      save.clear();
      setDraft(draftOf(dimension));
    }
  };
  const keepMine = async () => {
    const dimension = await latest.run();
    if (dimension) {
      save.clear();
      setDraft((current) => ({ ...current, version: dimension.version }));
      setRebased(dimension.version);
    }
  };

  return (
    <form onSubmit={submit} aria-label={isNew ? 'New dimension' : `Dimension ${initial.name}`} data-testid="dimension-editor">
      <div class="form-grid">
        <TextField
          id="dimension-name"
          label="Name"
          value={draft.name}
          onValue={(name) => set({ name })}
          required
          readOnly={!isNew}
          placeholder="environment"
          hint={
            isNew ? (
              draft.name && invalidName ? (
                <span class="error-text">{invalidName}</span>
              ) : (
                'Lower-case letters, digits, - or _; used as dimension:<name>'
              )
            ) : (
              `Version ${initial.version}`
            )
          }
        />
        <TextField
          id="dimension-description"
          label="Description"
          value={draft.description}
          onValue={(description) => set({ description })}
          placeholder="What the values mean"
          class="span-2"
        />
        <TextField
          id="dimension-default"
          label="Default value"
          value={draft.defaultValue}
          onValue={(defaultValue) => set({ defaultValue })}
          placeholder={DEFAULT_VALUE}
          hint="What no rule matches"
        />
      </div>
      <h3 class="rules-heading">Rules, in order: the first that matches sets the value</h3>
      <ol class="rule-list" data-testid="rules">
        {draft.rules.map((rule, index) => (
          <RuleRow
            key={rule.id}
            rule={rule}
            index={index}
            count={draft.rules.length}
            share={preview.error ? undefined : shares?.get(rule.id)}
            total={preview.data?.total.cost}
            pending={preview.loading}
            problem={problem?.rule === rule.id ? problem : undefined}
            currency={currency}
            onChange={(changes) => setRule(index, changes)}
            onMove={(by) => edit((current) => ({ ...current, rules: moveRule(current.rules, index, by) }))}
            onRemove={() => edit((current) => ({ ...current, rules: current.rules.filter((_, at) => at !== index) }))}
          />
        ))}
      </ol>
      <div class="rule-tools">
        <button
          type="button"
          class="button secondary small"
          onClick={() => edit((current) => ({ ...current, rules: [...current.rules, newRule()] }))}
        >
          Add rule
        </button>
        <span class="muted small">
          Expressions as in the explorer&rsquo;s filter, e.g. <code>{"tag('team', 'owner' == 'alpha')"}</code> or{' '}
          <code>{"providerName == 'azure'"}</code>; a rule cannot read another dimension.
        </span>
      </div>

      <section class="dimension-preview" data-testid="dimension-preview" aria-label="Preview">
        <div class="preview-head">
          <h3>
            Preview
            {preview.data && (
              <span class="muted small" data-testid="preview-range">
                {' '}
                {bucketLabel(preview.data.from, true)}
                {preview.data.to !== preview.data.from && <> – {bucketLabel(preview.data.to, true)}</>}
                {!range.from && !range.to && ' (the latest month with data)'}
              </span>
            )}
            {preview.loading && preview.data && (
              <span class="preview-updating muted small" role="status">
                <span class="spinner" aria-hidden="true" />
                updating…
              </span>
            )}
          </h3>
          <div class="inline range">
            <div class="field">
              <label for="preview-from">From</label>
              <input
                id="preview-from"
                type="month"
                value={monthInput(range.from || preview.data?.from)}
                onChange={(event) => setRange({ ...range, from: periodOfInput((event.target as HTMLInputElement).value) })}
              />
            </div>
            <div class="field">
              <label for="preview-to">To</label>
              <input
                id="preview-to"
                type="month"
                value={monthInput(range.to || preview.data?.to)}
                onChange={(event) => setRange({ ...range, to: periodOfInput((event.target as HTMLInputElement).value) })}
              />
            </div>
          </div>
        </div>
        {previewRule ? (
          <p class="muted">Fix rule {draft.rules.findIndex((rule) => rule.id === previewRule.rule) + 1} to see what the rules take.</p>
        ) : previewProblem ? (
          <ErrorBox error={previewProblem} onRetry={preview.retry} />
        ) : preview.data ? (
          <PreviewSummary preview={preview.data} currency={currency} defaultValue={draft.defaultValue || DEFAULT_VALUE} />
        ) : (
          <Loading label="Previewing the rules…" />
        )}
      </section>

      {conflict && (
        <div class="notice conflict" role="alert" data-testid="dimension-conflict">
          <p>
            <strong>Someone saved {draft.name} since you opened it.</strong> {save.error!.detail}. Load their version (your changes here are
            lost), or keep your rules and save them over it.
          </p>
          <div class="inline">
            <button type="button" class="button secondary small" disabled={latest.busy} onClick={loadTheirs}>
              Load their version
            </button>
            <button type="button" class="button secondary small" disabled={latest.busy} onClick={keepMine}>
              Keep my rules
            </button>
          </div>
        </div>
      )}
      {rebased !== undefined && (
        <p class="notice" role="status">
          Your rules now replace version {rebased}: save to apply them.
        </p>
      )}
      {latest.error && <ErrorBox error={latest.error} />}
      {saveProblem && <ErrorBox error={saveProblem} />}
      <div class="form-actions">
        <button class="button primary" type="submit" disabled={save.busy || blocker !== undefined} title={blocker}>
          {save.busy ? 'Saving…' : isNew ? 'Create dimension' : 'Save dimension'}
        </button>
        <button class="button secondary" type="button" onClick={onCancel}>
          Cancel
        </button>
        {blocker && <span class="muted small">{blocker}</span>}
      </div>
    </form>
  );
}
