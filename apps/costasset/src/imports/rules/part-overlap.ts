import { PermanentJobError } from '../../jobs/job-handler';
import { Cell, isNullCell, readDate } from '../map/cells';
import { ColumnKind, focusColumnOf } from '../map/focus-columns';

/**
 * Parts of one upload that hold the same rows: two snapshots of one billing period put into one
 * upload, whose cost would count twice (docs/focus.md, "Overlapping parts in one upload").
 *
 * Each part keeps, per (provider, billing account, billing period) of its rows, a bottom-k MinHash
 * sketch: its PART_SKETCH_SIZE smallest distinct row fingerprints. A row's fingerprint is a pair of
 * 53-bit hashes, compared in order: the key, over when the charge happened and what it cost
 * (KEY_COLUMNS), then the hash of its whole content (every cell). Rows are equal when both are;
 * the first, cheap one orders the sketch, so that a row that cannot enter it (nearly every row,
 * once k are kept) costs the hash of a few short cells and one comparison, and only the rows that
 * enter are hashed whole. Genuine parts of one export hold different rows (their sketches share
 * nothing); two snapshots of one period share most of them. Memory: at most 2k numbers per part and scope.
 */

/** Fingerprints kept per part and scope. */
export const PART_SKETCH_SIZE = 256;
/** The estimated share of the smaller part's rows (in a scope) also in the other part from which the upload is refused. */
export const PART_OVERLAP_THRESHOLD = 0.5;
export const PARTS_OVERLAP_RULE = 'FOCUS_PARTS_OVERLAP';

const TWO_POW_21 = 2 ** 21;
/** Mixed in for a null cell, before a number and after every cell: never a UTF-16 code unit, so no text can fake them. */
const NULL_MARK = 0x1_0000;
const CELL_END = 0x1_0001;
const NUMBER_MARK = 0x1_0002;

/** murmur3's finaliser: every input bit moves every output bit. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * How a part's header is fingerprinted: its columns in name order (so that two files with the
 * columns in another order agree), each with its FOCUS kind (1 datetime, 2 decimal, 0 other), and
 * the same for the columns of its key (KEY_COLUMNS, the sketch's order).
 */
export interface RowLayout {
  columns: number[];
  kinds: number[];
  keyColumns: number[];
  keyKinds: number[];
}

/**
 * The columns of a row's key: when a charge happened and what it cost, short cells that set rows
 * apart well (rows equal in all of them are told apart by the whole-row hash).
 */
const KEY_COLUMNS = new Set([
  'ChargePeriodStart',
  'ChargePeriodEnd',
  'BilledCost',
  'EffectiveCost',
  'ListCost',
  'ConsumedQuantity',
  'PricingQuantity',
]);

const OTHER = 0;
const DATE = 1;
const DECIMAL = 2;

export function rowLayout(header: readonly string[]): RowLayout {
  const columns = header.map((_name, index) => index).sort((a, b) => (header[a] < header[b] ? -1 : header[a] > header[b] ? 1 : a - b));
  const kindOf = (kind: ColumnKind | undefined) => (kind === 'date' ? DATE : kind === 'decimal' ? DECIMAL : OTHER);
  const kinds = columns.map((index) => kindOf(focusColumnOf(header[index])?.kind));
  const keyColumns = columns.filter((index) => KEY_COLUMNS.has(focusColumnOf(header[index])?.name ?? ''));
  return { columns, kinds, keyColumns, keyKinds: keyColumns.map((index) => kinds[columns.indexOf(index)]) };
}

/** A typed Parquet value other than an amount or a datetime, as text. */
function typedText(cell: Cell): string {
  if (cell instanceof Date) return Number.isNaN(cell.getTime()) ? 'Invalid Date' : cell.toISOString();
  if (typeof cell === 'object' && cell !== null)
    return JSON.stringify(cell, (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value));
  return String(cell);
}

/**
 * An amount or a datetime as the number the row reader makes of it (a double; milliseconds since
 * 1970), whatever the file holds: `1.50`, `1.5` and a Parquet DOUBLE 1.5 alike, `2024-09-18 22:00:00`,
 * `2024-09-18T22:00:00Z` and a Parquet TIMESTAMP alike. NaN when the cell is null or not one.
 */
function numberOf(cell: Cell, kind: number): number {
  if (kind === DECIMAL) {
    if (typeof cell === 'number') return cell;
    if (typeof cell === 'bigint') return Number(cell);
    return typeof cell === 'string' ? decimalOf(cell) : NaN;
  }
  if (cell instanceof Date) return cell.getTime();
  return typeof cell === 'string' ? dateOf(cell) : NaN;
}

const POWERS_OF_TEN = Array.from({ length: 16 }, (_unused, power) => 10 ** power);

/**
 * `Number(text)` (NaN for a null cell), without its runtime call for the common case (a sign, at
 * most 15 digits, a point): the digits as an integer and a power of ten are exact doubles and the
 * division rounds correctly, so the result is the same double.
 */
function decimalOf(text: string): number {
  const length = text.length;
  let at = 0;
  const sign = text.charCodeAt(0);
  if (sign === 45 || sign === 43) at = 1; // '-', '+'
  let mantissa = 0;
  let digits = 0;
  let decimals = -1;
  for (; at < length; at++) {
    const code = text.charCodeAt(at);
    if (code >= 48 && code <= 57) {
      mantissa = mantissa * 10 + (code - 48);
      digits++;
      if (decimals >= 0) decimals++;
    } else if (code === 46 && decimals < 0) decimals = 0;
    else return isNullCell(text) ? NaN : Number(text);
  }
  if (digits === 0) return NaN;
  if (digits > 15) return Number(text);
  const value = decimals > 0 ? mantissa / POWERS_OF_TEN[decimals] : mantissa;
  return sign === 45 ? -value : value;
}

/** Two digits at `at` as a number, or -1. */
function twoDigits(text: string, at: number): number {
  const tens = text.charCodeAt(at) - 48;
  const ones = text.charCodeAt(at + 1) - 48;
  return tens >= 0 && tens <= 9 && ones >= 0 && ones <= 9 ? tens * 10 + ones : -1;
}

/** Days from 1970-01-01 to a date of the proleptic Gregorian calendar, as `Date.UTC` counts them, without its runtime call. */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * ((month + 9) % 12) + 2) / 5) + day - 1;
  return era * 146_097 + yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear - 719_468;
}

/**
 * Milliseconds of a datetime as the row reader reads it (UTC unless an offset is given): the
 * layouts exports write (`2024-09-18`, `2024-09-18 22:00:00`, `2024-09-18T22:00:00`, `…Z`) without
 * a Date; anything else through `readDate`. NaN when it is not a datetime.
 */
function dateOf(text: string): number {
  const length = text.length;
  if ((length === 10 || length === 19 || (length === 20 && text.charCodeAt(19) === 90)) && text.charCodeAt(4) === 45) {
    const century = twoDigits(text, 0);
    const year = twoDigits(text, 2);
    const month = twoDigits(text, 5);
    const day = twoDigits(text, 8);
    const separator = length === 10 ? 84 : text.charCodeAt(10);
    const hour = length === 10 ? 0 : twoDigits(text, 11);
    const minute = length === 10 ? 0 : twoDigits(text, 14);
    const second = length === 10 ? 0 : twoDigits(text, 17);
    if (
      century >= 0 &&
      year >= 0 &&
      month >= 1 &&
      day >= 1 &&
      hour >= 0 &&
      minute >= 0 &&
      second >= 0 &&
      text.charCodeAt(7) === 45 &&
      (separator === 84 || separator === 32) &&
      (length === 10 || (text.charCodeAt(13) === 58 && text.charCodeAt(16) === 58))
    )
      return daysFromCivil(century * 100 + year, month, day) * 86_400_000 + ((hour * 60 + minute) * 60 + second) * 1000;
  }
  if (isNullCell(text)) return NaN;
  try {
    return readDate(text, '')?.getTime() ?? NaN;
  } catch {
    return NaN;
  }
}

/** Scratch space to read a double's 64 bits as two 32-bit words. */
const DOUBLE = new Float64Array(1);
const WORDS = new Int32Array(DOUBLE.buffer);

/**
 * The 53-bit hash of a row's whole content (a safe integer, compared as a number): two
 * FNV-1a-style 32-bit lanes with different multipliers over the cells, each finalised with
 * murmur3's mix. Not cryptographic: it only has to spread rows evenly and tell rows apart.
 *
 * A cell is read as the row reader reads it, so that a CSV and a Parquet file of the same rows
 * agree: null cells alike (empty, blanks, `NULL`), text without its surrounding blanks, an amount
 * or a datetime by its value (`numberOf`), anything else as text.
 */
export function rowFingerprint(cells: readonly Cell[], layout: RowLayout): number {
  return hashCells(cells, layout.columns, layout.kinds);
}

/** The first hash of a row's fingerprint, its key: the KEY_COLUMNS only, each read as `rowFingerprint` reads it. */
export function rowKey(cells: readonly Cell[], layout: RowLayout): number {
  return hashCells(cells, layout.keyColumns, layout.keyKinds);
}

function hashCells(cells: readonly Cell[], order: readonly number[], kinds: readonly number[]): number {
  let h1 = 0x811c9dc5;
  let h2 = 0x3c6ef372;
  for (let column = 0; column < order.length; column++) {
    const cell = cells[order[column]];
    const kind = kinds[column];
    const value = kind === OTHER ? NaN : numberOf(cell, kind);
    if (value === value) {
      // an amount or a datetime: its 64 bits, after a mark no text can give
      DOUBLE[0] = value + 0; // -0 as 0
      h1 = Math.imul(h1 ^ NUMBER_MARK, 0x01000193);
      h2 = Math.imul(h2 ^ NUMBER_MARK, 0x5bd1e995);
      h1 = Math.imul(h1 ^ WORDS[0], 0x01000193);
      h2 = Math.imul(h2 ^ WORDS[0], 0x5bd1e995);
      h1 = Math.imul(h1 ^ WORDS[1], 0x01000193);
      h2 = Math.imul(h2 ^ WORDS[1], 0x5bd1e995);
    } else {
      const text = typeof cell === 'string' ? cell : cell === undefined || cell === null ? '' : typedText(cell);
      let start = 0;
      let end = text.length;
      while (start < end && text.charCodeAt(start) <= 32) start++;
      while (end > start && text.charCodeAt(end - 1) <= 32) end--;
      if (start === end || (end - start === 4 && text.slice(start, end).toUpperCase() === 'NULL')) {
        h1 = Math.imul(h1 ^ NULL_MARK, 0x01000193);
        h2 = Math.imul(h2 ^ NULL_MARK, 0x5bd1e995);
      } else {
        for (let at = start; at < end; at++) {
          const code = text.charCodeAt(at);
          h1 = Math.imul(h1 ^ code, 0x01000193);
          h2 = Math.imul(h2 ^ code, 0x5bd1e995);
        }
      }
    }
    h1 = Math.imul(h1 ^ CELL_END, 0x01000193);
    h2 = Math.imul(h2 ^ CELL_END, 0x5bd1e995);
  }
  return fmix32(h1 ^ order.length) * TWO_POW_21 + (fmix32(h2) >>> 11);
}

/** (key, hash) before (otherKey, otherHash). */
const before = (key: number, hash: number, otherKey: number, otherHash: number) => key < otherKey || (key === otherKey && hash < otherHash);

/** The k smallest distinct row fingerprints (key, hash) seen, ascending, and the number of rows seen. */
export class BottomK {
  /** Grown by doubling up to k, so that a scope of a few rows holds a few numbers. */
  keys: Float64Array;
  hashes: Float64Array;
  size = 0;
  rows = 0;
  /** A row whose key is above it cannot enter: the largest key kept, once k are. */
  ceiling = Infinity;

  constructor(readonly k = PART_SKETCH_SIZE) {
    this.keys = new Float64Array(Math.min(k, 8));
    this.hashes = new Float64Array(Math.min(k, 8));
  }

  /** Keeps the fingerprint if it is among the k smallest (the row is counted by the caller). */
  add(key: number, hash = 0): void {
    if (key > this.ceiling || (this.size === this.k && !before(key, hash, this.keys[this.k - 1], this.hashes[this.k - 1]))) return;
    const at = this.position(key, hash);
    if (at < this.size && this.keys[at] === key && this.hashes[at] === hash) return;
    if (this.size === this.keys.length && this.size < this.k) this.grow();
    const end = Math.min(this.size, this.k - 1);
    this.keys.copyWithin(at + 1, at, end);
    this.hashes.copyWithin(at + 1, at, end);
    this.keys[at] = key;
    this.hashes[at] = hash;
    if (this.size < this.k) this.size++;
    if (this.size === this.k) this.ceiling = this.keys[this.k - 1];
  }

  has(key: number, hash = 0): boolean {
    const at = this.position(key, hash);
    return at < this.size && this.keys[at] === key && this.hashes[at] === hash;
  }

  /** Every distinct row was kept (fewer than k): the sketch is the set itself. */
  get complete(): boolean {
    return this.size < this.k;
  }

  /** Whether membership of the fingerprint is known: at or before the largest kept, or any when complete. */
  covers(key: number, hash: number): boolean {
    return this.complete || !before(this.keys[this.size - 1], this.hashes[this.size - 1], key, hash);
  }

  /** Distinct rows: exact when complete, else the bottom-k estimate (k - 1) / (largest key kept, as a fraction of the range). */
  distinct(): number {
    if (this.complete) return this.size;
    return (this.k - 1) / (Math.max(1, this.keys[this.k - 1]) / 2 ** 53);
  }

  private grow(): void {
    const capacity = Math.min(this.k, this.keys.length * 2);
    const keys = new Float64Array(capacity);
    const hashes = new Float64Array(capacity);
    keys.set(this.keys);
    hashes.set(this.hashes);
    this.keys = keys;
    this.hashes = hashes;
  }

  /** The first index whose fingerprint is not before (key, hash). */
  private position(key: number, hash: number): number {
    let low = 0;
    let high = this.size;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (before(this.keys[middle], this.hashes[middle], key, hash)) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}

export interface OverlapEstimate {
  /** Jaccard similarity of the two row sets, from the k smallest fingerprints of their union. */
  jaccard: number;
  /** Share of the smaller set's rows also in the other. */
  containment: number;
}

/**
 * Estimates from two sketches. Jaccard: the union's k smallest fingerprints are a sample of the
 * union, and each one's membership in both sets is known. Containment of the smaller set (by
 * distinct rows) in the larger: its kept fingerprints that the larger's sketch covers are a sample
 * of it whose membership in the larger is known; when there is none, from the Jaccard estimate
 * and the sizes.
 */
export function estimateOverlap(a: BottomK, b: BottomK): OverlapEstimate {
  const k = Math.min(a.k, b.k);
  let i = 0;
  let j = 0;
  let taken = 0;
  let both = 0;
  while (taken < k && (i < a.size || j < b.size)) {
    if (j >= b.size || (i < a.size && before(a.keys[i], a.hashes[i], b.keys[j], b.hashes[j]))) i++;
    else if (i >= a.size || before(b.keys[j], b.hashes[j], a.keys[i], a.hashes[i])) j++;
    else {
      both++;
      i++;
      j++;
    }
    taken++;
  }
  const jaccard = taken === 0 ? 0 : both / taken;
  const [small, large] = a.distinct() <= b.distinct() ? [a, b] : [b, a];
  let sampled = 0;
  let shared = 0;
  for (let at = 0; at < small.size && large.covers(small.keys[at], small.hashes[at]); at++) {
    sampled++;
    if (large.has(small.keys[at], small.hashes[at])) shared++;
  }
  if (sampled > 0) return { jaccard, containment: shared / sampled };
  const intersection = (jaccard * (a.distinct() + b.distinct())) / (1 + jaccard);
  return { jaccard, containment: Math.min(1, intersection / Math.max(1, small.distinct())) };
}

export interface PartsOverlap {
  /** The part whose rows are (about `share`) also in `other`: the smaller one in the scope. */
  part: string;
  other: string;
  providerName: string;
  billingAccountId: string;
  billingPeriod: string;
  share: number;
  jaccard: number;
  /** Other scopes where the two parts overlap too. */
  moreScopes: number;
}

interface Scope {
  providerName: string;
  billingAccountId: string;
  billingPeriod: string;
}

/** Scopes of a part looked up by comparison before the maps are used. */
const MAX_LISTED_SCOPES = 16;

interface ScopeSketch {
  scope: Scope;
  sketch: BottomK;
}

/** A part's sketches as a part job hands them to the upload's job: the kept fingerprints of each scope in base64. */
export interface PartSketchesHandoff {
  part: string;
  scopes: { providerName: string; billingAccountId: string; billingPeriod: string; rows: number; keys: string; hashes: string }[];
}

const toBase64 = (values: Float64Array, size: number) => Buffer.from(values.buffer, values.byteOffset, size * 8).toString('base64');
function fromBase64(text: string): Float64Array {
  const bytes = Buffer.from(text, 'base64');
  return new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
}

/** The sketches of one part, by scope; `add` is called for every row the part writes. */
export class PartSketches {
  /** By `provider NUL account NUL period`. */
  readonly scopes = new Map<string, ScopeSketch>();
  /** The same, by provider, then account, then period: no key to build for a row. */
  private readonly index = new Map<string, Map<string, Map<string, ScopeSketch>>>();
  /** The same, in the order first seen. */
  private readonly list: ScopeSketch[] = [];
  private last: ScopeSketch | undefined;
  private readonly layout: RowLayout;

  constructor(
    readonly part: string,
    header: readonly string[],
  ) {
    this.layout = rowLayout(header);
  }

  add(cells: readonly Cell[], providerName: string, billingAccountId: string, billingPeriod: string): void {
    let entry = this.last;
    if (
      !entry ||
      entry.scope.providerName !== providerName ||
      entry.scope.billingAccountId !== billingAccountId ||
      entry.scope.billingPeriod !== billingPeriod
    ) {
      entry = this.entry(providerName, billingAccountId, billingPeriod);
      this.last = entry;
    }
    const sketch = entry.sketch;
    sketch.rows++;
    // most rows stop here: only a row whose key can enter the sketch is hashed whole
    const key = rowKey(cells, this.layout);
    if (key <= sketch.ceiling) sketch.add(key, rowFingerprint(cells, this.layout));
  }

  toHandoff(): PartSketchesHandoff {
    return {
      part: this.part,
      scopes: this.list.map(({ scope, sketch }) => ({
        ...scope,
        rows: sketch.rows,
        keys: toBase64(sketch.keys, sketch.size),
        hashes: toBase64(sketch.hashes, sketch.size),
      })),
    };
  }

  /** A part's sketches as another job made them (`toHandoff`): compared, never added to. */
  static fromHandoff(handoff: PartSketchesHandoff): PartSketches {
    const sketches = new PartSketches(handoff.part, []);
    for (const { providerName, billingAccountId, billingPeriod, rows, keys, hashes } of handoff.scopes) {
      const { sketch } = sketches.entry(providerName, billingAccountId, billingPeriod);
      sketch.keys = fromBase64(keys);
      sketch.hashes = fromBase64(hashes);
      sketch.size = sketch.keys.length;
      sketch.rows = rows;
      sketch.ceiling = sketch.size === sketch.k ? sketch.keys[sketch.k - 1] : Infinity;
    }
    return sketches;
  }

  private entry(providerName: string, billingAccountId: string, billingPeriod: string): ScopeSketch {
    // a part holds a few scopes, mostly: comparing them beats hashing three new strings into maps
    const list = this.list;
    if (list.length <= MAX_LISTED_SCOPES) {
      for (let at = 0; at < list.length; at++) {
        const scope = list[at].scope;
        if (scope.billingAccountId === billingAccountId && scope.billingPeriod === billingPeriod && scope.providerName === providerName)
          return list[at];
      }
    }
    let accounts = this.index.get(providerName);
    if (!accounts) this.index.set(providerName, (accounts = new Map()));
    let periods = accounts.get(billingAccountId);
    if (!periods) accounts.set(billingAccountId, (periods = new Map()));
    let entry = periods.get(billingPeriod);
    if (!entry) {
      entry = { scope: { providerName, billingAccountId, billingPeriod }, sketch: new BottomK() };
      periods.set(billingPeriod, entry);
      this.scopes.set(`${providerName}\u0000${billingAccountId}\u0000${billingPeriod}`, entry);
      list.push(entry);
    }
    return entry;
  }
}

/**
 * The parts of one upload that overlap: for each pair of parts sharing a scope, the scope where
 * the smaller part's share of rows also in the other is highest, when it reaches `threshold`.
 */
export function overlappingParts(parts: readonly PartSketches[], threshold = PART_OVERLAP_THRESHOLD): PartsOverlap[] {
  const found: PartsOverlap[] = [];
  for (let first = 0; first < parts.length; first++) {
    for (let second = first + 1; second < parts.length; second++) {
      const a = parts[first];
      const b = parts[second];
      let worst: PartsOverlap | undefined;
      let scopes = 0;
      for (const [key, { scope, sketch }] of a.scopes) {
        const other = b.scopes.get(key)?.sketch;
        if (!other) continue;
        const { jaccard, containment } = estimateOverlap(sketch, other);
        if (containment < threshold) continue;
        scopes++;
        if (worst && worst.share >= containment) continue;
        const aSmaller = sketch.distinct() <= other.distinct();
        worst = {
          part: aSmaller ? a.part : b.part,
          other: aSmaller ? b.part : a.part,
          ...scope,
          share: containment,
          jaccard,
          moreScopes: 0,
        };
      }
      if (worst) found.push({ ...worst, moreScopes: scopes - 1 });
    }
  }
  return found;
}

/** The reason shown for one overlapping pair, on the part whose rows are in the other. */
export function overlapReason(overlap: PartsOverlap): string {
  const percent = Math.max(1, Math.min(100, Math.round(overlap.share * 100)));
  const more = overlap.moreScopes > 0 ? ` and in ${overlap.moreScopes} other billing account(s) or period(s)` : '';
  return (
    `holds the same rows as ${overlap.other} for billing account ${overlap.billingAccountId}, billing period ` +
    `${overlap.billingPeriod} (about ${percent}% of its rows)${more}: two snapshots of one period in one upload would ` +
    'count its cost twice; import them as separate uploads (the newer replaces the older) or drop one'
  );
}

/** The whole upload is refused: nothing is kept, every overlapping pair is named. */
export function partsOverlapRefusal(overlaps: readonly PartsOverlap[], details: Record<string, unknown> = {}): PermanentJobError {
  const pairs = overlaps.map((overlap) => `${overlap.part} and ${overlap.other}`);
  const first = overlaps[0];
  return new PermanentJobError(
    `${PARTS_OVERLAP_RULE}: ${overlaps.length} pair(s) of parts hold the same rows (${pairs.slice(0, 5).join('; ')}` +
      `${pairs.length > 5 ? '; …' : ''}), e.g. for billing account ${first.billingAccountId}, billing period ` +
      `${first.billingPeriod}; nothing was kept`,
    { ...details, errors: overlaps.map((overlap) => ({ file: overlap.part, line: 0, reason: overlapReason(overlap) })) },
  );
}
