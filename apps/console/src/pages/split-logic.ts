import type { ApiError } from '../api/problem';
import type { ShowbackLine, ShowbackSplit, SplitMethod, SplitRule } from '../api/types';

/** The split rules editor's and the showback's logic, kept out of the components (unit-tested in split-logic.spec.ts). */

export const SPLIT_METHODS: readonly (readonly [SplitMethod, string])[] = [
  ['proportional', 'Proportional to their own cost'],
  ['even', 'Evenly'],
  ['fixed', 'Fixed percentages'],
];

/** A target value as the editor holds it: `id` keeps its row when others are removed; `percent` as typed. */
export interface SplitTargetDraft {
  id: number;
  value: string;
  percent: string;
}

/** A split rule as the editor holds it: `id` keeps its card when the rules move. */
export interface SplitDraft {
  id: number;
  name: string;
  source: string;
  target: string;
  method: SplitMethod;
  targets: SplitTargetDraft[];
}

let nextId = 1;
export const newSplitTarget = (value = '', percent = ''): SplitTargetDraft => ({ id: nextId++, value, percent });

/** The editor's draft of a saved rule, or of a new one (towards `target`, proportional, one empty value). */
export function splitDraftOf(rule?: SplitRule, target = ''): SplitDraft {
  if (!rule) return { id: nextId++, name: '', source: '', target, method: 'proportional', targets: [newSplitTarget()] };
  return {
    id: nextId++,
    name: rule.name,
    source: rule.source,
    target: rule.target,
    method: rule.method,
    targets: rule.targets.map((entry) => newSplitTarget(entry.value, entry.percent === undefined ? '' : String(entry.percent))),
  };
}

/** The sum of the targets' percentages (what is not a number counts as none). */
export function percentSum(targets: readonly Pick<SplitTargetDraft, 'percent'>[]): number {
  const sum = targets.reduce((total, entry) => total + (Number.isFinite(Number(entry.percent)) ? Number(entry.percent) : 0), 0);
  // 33.3 + 33.3 + 33.4: no float noise in what is shown
  return Math.round(sum * 1e9) / 1e9;
}

const isPercent = (text: string) => text.trim() !== '' && Number.isFinite(Number(text)) && Number(text) >= 0 && Number(text) <= 100;

/** The body of PUT splitRules: the whole ordered list; percentages for the fixed method only. */
export function splitRulesRequest(drafts: readonly SplitDraft[]): SplitRule[] {
  return drafts.map((draft) => ({
    name: draft.name.trim(),
    source: draft.source,
    target: draft.target,
    method: draft.method,
    targets: draft.targets.map((entry) =>
      draft.method === 'fixed' ? { value: entry.value.trim(), percent: Number(entry.percent) } : { value: entry.value.trim() },
    ),
  }));
}

/** Where a problem of a rule belongs: the rule (its index), a field of it, a target of it. */
export type SplitField = 'name' | 'source' | 'target' | 'method' | 'targets';
export interface SplitProblem {
  rule: number;
  field?: SplitField;
  /** The index of the target value, when a value is at fault. */
  target?: number;
  message: string;
}

/** What the editor would refuse before sending: the first problem of the first rule that has one. */
export function splitDraftProblem(drafts: readonly SplitDraft[]): SplitProblem | undefined {
  const names = new Set<string>();
  for (const [rule, draft] of drafts.entries()) {
    const name = draft.name.trim();
    if (!name) return { rule, field: 'name', message: 'A name is required.' };
    if (names.has(name)) return { rule, field: 'name', message: `A second rule is named '${name}'.` };
    names.add(name);
    if (!draft.source.trim()) return { rule, field: 'source', message: 'The source expression is required.' };
    if (!draft.target) return { rule, field: 'target', message: 'Choose where the cost goes.' };
    if (draft.targets.length === 0) return { rule, field: 'targets', message: 'Give at least one value.' };
    const values = new Set<string>();
    for (const [target, entry] of draft.targets.entries()) {
      const value = entry.value.trim();
      if (!value) return { rule, field: 'targets', target, message: `Value ${target + 1} is empty.` };
      if (values.has(value)) return { rule, field: 'targets', target, message: `'${value}' is listed twice.` };
      values.add(value);
      if (draft.method === 'fixed' && !isPercent(entry.percent))
        return { rule, field: 'targets', target, message: `The percentage of '${value}' must be a number from 0 to 100.` };
    }
    if (draft.method === 'fixed' && Math.abs(percentSum(draft.targets) - 100) > 1e-9)
      return { rule, field: 'targets', message: `The percentages sum to ${percentSum(draft.targets)}%, not 100%.` };
  }
  return undefined;
}

const FIELD = /^(?:splits|rules)\.(\d+)(?:\.(name|source|targets|target|method)\b)?(?:\.(\d+))?/;
const CYCLE = /split '(.+?)' would take back what '(.+?)' gives/;

/**
 * Where the problems of a PUT belong: INVALID_SPLIT_RULE (`splits.<index>.<field>`) and
 * VALIDATION_FAILED (`rules.<index>.<field>[.<target>…]`) on the field of the rule they name,
 * SPLIT_RULE_CYCLE on both rules it names (by name); `unplaced`, what names no rule.
 */
export function splitProblemsOf(
  error: ApiError | undefined,
  drafts: readonly Pick<SplitDraft, 'name'>[],
): { placed: SplitProblem[]; unplaced?: ApiError } {
  if (!error) return { placed: [] };
  const placed: SplitProblem[] = [];
  if (error.code === 'SPLIT_RULE_CYCLE') {
    const names = CYCLE.exec(error.detail)?.slice(1) ?? [];
    for (const [rule, draft] of drafts.entries())
      if (names.includes(draft.name.trim())) placed.push({ rule, field: 'source', message: error.detail });
  } else if (error.code === 'INVALID_SPLIT_RULE' || error.code === 'VALIDATION_FAILED') {
    for (const entry of error.extra.errors ?? []) {
      const match = FIELD.exec(entry.field);
      if (!match || Number(match[1]) >= drafts.length) continue;
      placed.push({
        rule: Number(match[1]),
        field: match[2] as SplitField | undefined,
        target: match[3] === undefined ? undefined : Number(match[3]),
        message: entry.messages.join(', '),
      });
    }
  }
  return placed.length ? { placed } : { placed, unplaced: error };
}

/** A showback line's value as shown (a tag's line items without it: null). */
export const valueLabel = (value: string | null) => value ?? '(no tag)';

/** The statement's totals row: direct, shared and total over every line. */
export function showbackTotals(lines: readonly ShowbackLine[]): { direct: number; shared: number; total: number } {
  return lines.reduce(
    (sum, line) => ({ direct: sum.direct + line.direct, shared: sum.shared + line.shared, total: sum.total + line.total }),
    { direct: 0, shared: 0, total: 0 },
  );
}

/** A box of the flow diagram: a rule (left) or a value receiving cost (right). */
export interface FlowNode {
  key: string;
  label: string;
  amount: number;
  x: number;
  /** The top of its bar; its label is centred on its slot. */
  y: number;
  height: number;
  labelY: number;
}

/** A band from a rule to a value: its width says the amount. */
export interface FlowBand {
  rule: string;
  value: string;
  amount: number;
  thickness: number;
  path: string;
  labelX: number;
  labelY: number;
}

export interface FlowLayout {
  width: number;
  height: number;
  sources: FlowNode[];
  targets: FlowNode[];
  bands: FlowBand[];
}

export const FLOW = { width: 760, label: 200, bar: 12, scale: 220, slot: 40, gap: 14, pad: 6 };

/**
 * The flow diagram of a month's splits: each rule on the left (its source amount), each value it
 * gives to on the right (what it receives in all), and a band per share, as wide as its amount
 * (all in one scale; a band is at least a hairline).
 */
export function flowLayout(splits: readonly ShowbackSplit[]): FlowLayout {
  const { width, label, bar, scale, slot, gap, pad } = FLOW;
  const leftX = label;
  const rightX = width - label - bar;
  const largest = Math.max(
    splits.reduce((sum, split) => sum + split.shares.reduce((total, share) => total + Math.abs(share.amount), 0), 0),
    1e-12,
  );
  const thickness = (amount: number) => Math.max((Math.abs(amount) / largest) * scale, 1);

  const values: string[] = [];
  for (const split of splits) for (const share of split.shares) if (!values.includes(share.value)) values.push(share.value);
  const received = new Map(values.map((value) => [value, 0]));
  const receivedThickness = new Map(values.map((value) => [value, 0]));
  for (const split of splits)
    for (const share of split.shares) {
      received.set(share.value, received.get(share.value)! + share.amount);
      receivedThickness.set(share.value, receivedThickness.get(share.value)! + thickness(share.amount));
    }

  const column = (entries: { key: string; label: string; amount: number; height: number }[], x: number): FlowNode[] => {
    let y = pad;
    return entries.map((entry) => {
      const room = Math.max(entry.height, slot);
      const node = { ...entry, x, y: y + (room - entry.height) / 2, labelY: y + room / 2 };
      y += room + gap;
      return node;
    });
  };
  const sources = column(
    splits.map((split) => ({
      key: split.name,
      label: split.name,
      amount: split.source,
      height: split.shares.reduce((total, share) => total + thickness(share.amount), 0),
    })),
    leftX,
  );
  const targets = column(
    values.map((value) => ({ key: value, label: value, amount: received.get(value)!, height: receivedThickness.get(value)! })),
    rightX,
  );

  const bands: FlowBand[] = [];
  const filled = new Map(values.map((value) => [value, 0]));
  const x0 = leftX + bar;
  const x1 = rightX;
  const middle = (x0 + x1) / 2;
  splits.forEach((split, index) => {
    let y0 = sources[index].y;
    for (const share of split.shares) {
      const target = targets[values.indexOf(share.value)];
      const t = thickness(share.amount);
      const y1 = target.y + filled.get(share.value)!;
      filled.set(share.value, filled.get(share.value)! + t);
      const r = (n: number) => Math.round(n * 100) / 100;
      bands.push({
        rule: split.name,
        value: share.value,
        amount: share.amount,
        thickness: t,
        path:
          `M${r(x0)},${r(y0)} C${r(middle)},${r(y0)} ${r(middle)},${r(y1)} ${r(x1)},${r(y1)} ` +
          `L${r(x1)},${r(y1 + t)} C${r(middle)},${r(y1 + t)} ${r(middle)},${r(y0 + t)} ${r(x0)},${r(y0 + t)} Z`,
        labelX: r(middle),
        labelY: r((y0 + y1 + t) / 2),
      });
      y0 += t;
    }
  });
  const bottom = (nodes: FlowNode[]) => nodes.reduce((most, node) => Math.max(most, node.labelY + slot / 2, node.y + node.height), 0);
  return { width, height: Math.ceil(Math.max(bottom(sources), bottom(targets)) + pad), sources, targets, bands };
}
