import { compileFilter, evaluateFilter } from '../expressions';

export const SPLIT_METHODS = ['proportional', 'even', 'fixed'] as const;
export type SplitMethod = (typeof SPLIT_METHODS)[number];

/** Where split cost lands: the values of a virtual dimension, or of an activated tag key. */
export type AllocationTarget = { dimension: string } | { tag: { group: string; key: string } };

/** A line-item-like document a piece of cost is described by (the fields its rollup rows hold). */
export interface PieceDoc {
  [field: string]: unknown;
  dimensions?: Record<string, string>;
  tags?: Array<{ group: string; key: string; value: string }>;
}

export interface CostPiece {
  doc: PieceDoc;
  amount: number;
  /** The split rule that gave this piece (absent: direct cost). */
  sharedBy?: string;
}

export interface CompiledSplit {
  name: string;
  /** The compiled source expression: the cost it matches is split. */
  source: Record<string, unknown>;
  target: AllocationTarget;
  method: SplitMethod;
  /** Target values; `percent` for the fixed method (summing to 100). */
  targets: Array<{ value: string; percent?: number }>;
}

export interface SplitOutcome {
  name: string;
  /** The source cost taken (the sum of the pieces the source matched). */
  source: number;
  /** Each target's share; they add up to `source` exactly in units of 10⁻⁹ (`NANOS`). */
  shares: Array<{ value: string; amount: number }>;
}

/** Shares are computed in these units of the currency: the source total is rounded once per split, never per row. */
export const NANOS = 1_000_000_000;

export function targetValue(doc: PieceDoc, target: AllocationTarget): string | null {
  if ('dimension' in target) return doc.dimensions?.[target.dimension] ?? null;
  return doc.tags?.find((tag) => tag.group === target.tag.group && tag.key === target.tag.key)?.value ?? null;
}

/**
 * Runs the splits in their declared order over pieces of cost (direct cost first, as the rollups
 * hold it): each split takes the pieces its source matches (direct or received from an earlier
 * split), and gives their total to its targets, by their own cost in the same pieces
 * (proportional; evenly when none has any), evenly, or by fixed percentages. A share keeps what
 * all the pieces it came from have in common, and the target's value. Billed pieces are never
 * changed: the answer is new pieces.
 */
export function runSplits(
  direct: readonly CostPiece[],
  splits: readonly CompiledSplit[],
): { pieces: CostPiece[]; outcomes: SplitOutcome[] } {
  let pieces = [...direct];
  const outcomes: SplitOutcome[] = [];
  for (const split of splits) {
    const taken: CostPiece[] = [];
    const kept: CostPiece[] = [];
    const matches = compileFilter(split.source);
    for (const piece of pieces) (matches(piece.doc) ? taken : kept).push(piece);
    const source = taken.reduce((sum, piece) => sum + piece.amount, 0);
    if (taken.length === 0 || split.targets.length === 0) {
      outcomes.push({ name: split.name, source: 0, shares: [] });
      continue;
    }
    const nanos = divide(BigInt(Math.round(source * NANOS)), weightsOf(split, kept));
    const common = commonDoc(taken.map((piece) => piece.doc));
    const shares = split.targets.map((target, index) => ({ value: target.value, amount: Number(nanos[index]) / NANOS }));
    pieces = [
      ...kept,
      ...shares.map((share) => ({ doc: withTarget(common, split.target, share.value), amount: share.amount, sharedBy: split.name })),
    ];
    outcomes.push({ name: split.name, source, shares });
  }
  return { pieces, outcomes };
}

function weightsOf(split: CompiledSplit, kept: readonly CostPiece[]): number[] {
  if (split.method === 'fixed') return split.targets.map((target) => target.percent ?? 0);
  if (split.method === 'even') return split.targets.map(() => 1);
  const own = new Map<string, number>();
  for (const piece of kept) {
    const value = targetValue(piece.doc, split.target);
    if (value !== null) own.set(value, (own.get(value) ?? 0) + piece.amount);
  }
  const weights = split.targets.map((target) => Math.max(0, own.get(target.value) ?? 0));
  return weights.some((weight) => weight > 0) ? weights : split.targets.map(() => 1);
}

/**
 * `total` divided in proportion to `weights`, in whole units, by largest remainder: the parts add up
 * to `total` exactly. Weights are scaled to integers first, relative to the largest (which becomes
 * 10¹²); a negative total is divided as its opposite. No positive weight: every part is 0.
 */
export function divide(total: bigint, weights: readonly number[]): bigint[] {
  const negative = total < 0n;
  const whole = negative ? -total : total;
  const largest = Math.max(0, ...weights);
  if (!(largest > 0) || !Number.isFinite(largest)) return weights.map(() => 0n);
  const scaled = weights.map((weight) => BigInt(Math.round((Math.max(0, weight) / largest) * 1e12)));
  const sum = scaled.reduce((a, b) => a + b, 0n);
  if (sum === 0n) return weights.map(() => 0n);
  const parts = scaled.map((weight) => (whole * weight) / sum);
  let left = whole - parts.reduce((a, b) => a + b, 0n);
  const order = scaled
    .map((weight, index) => ({ index, remainder: (whole * weight) % sum }))
    .sort((a, b) => (a.remainder === b.remainder ? a.index - b.index : a.remainder > b.remainder ? -1 : 1));
  for (const { index } of order) {
    if (left === 0n) break;
    parts[index] += 1n;
    left -= 1n;
  }
  return negative ? parts.map((part) => -part) : parts;
}

/** What every document has in common: equal plain fields, equal dimension values, tags all of them hold. */
function commonDoc(docs: readonly PieceDoc[]): PieceDoc {
  const [first, ...rest] = docs;
  const common: PieceDoc = {};
  for (const [field, value] of Object.entries(first)) {
    if (field === 'dimensions' || field === 'tags') continue;
    if (rest.every((doc) => doc[field] === value)) common[field] = value;
  }
  const dimensions: Record<string, string> = {};
  for (const [name, value] of Object.entries(first.dimensions ?? {}))
    if (rest.every((doc) => doc.dimensions?.[name] === value)) dimensions[name] = value;
  common.dimensions = dimensions;
  common.tags = (first.tags ?? []).filter((tag) =>
    rest.every((doc) => doc.tags?.some((other) => other.group === tag.group && other.key === tag.key && other.value === tag.value)),
  );
  return common;
}

function withTarget(doc: PieceDoc, target: AllocationTarget, value: string): PieceDoc {
  if ('dimension' in target) return { ...doc, dimensions: { ...doc.dimensions, [target.dimension]: value } };
  const tags = (doc.tags ?? []).filter((tag) => !(tag.group === target.tag.group && tag.key === target.tag.key));
  return { ...doc, tags: [{ ...target.tag, value }, ...tags] };
}

/**
 * The first feedback in a declared order of splits, if any: a split whose source would take what
 * it or a split after it gives (a cost that would go round). Decided on the target's value alone.
 */
export function feedbackOf(splits: readonly CompiledSplit[]): { giver: string; taker: string; value: string } | undefined {
  for (const [index, giver] of splits.entries()) {
    for (const target of giver.targets) {
      const doc: PieceDoc =
        'dimension' in giver.target
          ? { dimensions: { [giver.target.dimension]: target.value } }
          : { tags: [{ ...giver.target.tag, value: target.value }] };
      const known = new Set(['dimension' in giver.target ? `dimensions.${giver.target.dimension}` : 'tags']);
      for (const taker of splits.slice(0, index + 1))
        if (evaluateFilter(taker.source, doc, known) === true) return { giver: giver.name, taker: taker.name, value: target.value };
    }
  }
  return undefined;
}
