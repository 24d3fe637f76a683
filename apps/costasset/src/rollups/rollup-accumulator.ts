import { AllocationModel } from '../allocation/allocation-model';
import { allocationKey, RollupGroup } from './rollup-fields';
import { RESOURCE_DIMENSIONS, ROLLUP_AMOUNTS, ROLLUP_DIMENSIONS } from './schemas/cost-rollup.schema';

const DAY_MS = 86_400_000;
/**
 * The rows by resource a load sums in memory at most (about 1.5 KB each): past them it stops, and
 * the database sums them when the load ends (`resourcePipeline`), so that a load's memory stays
 * bounded whatever the number of resources (a month of a large estate has hundreds of thousands).
 */
export const MAX_RESOURCE_ROWS = 20_000;
/** Dates whose `toISOString()` starts with a 4-digit year: there, the UTC day number and the ISO day name the same days. */
const FIRST_MS = -62_167_219_200_000; // 0000-01-01T00:00:00.000Z
const LAST_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * The rollup rows of line items as a load writes them, summed in memory: what `rollupPipeline`
 * would compute from the stored rows, without reading them back. A field the document holds as
 * `undefined` is stored as `null` by the driver, so it counts as `null`; an absent one stays absent.
 * Groups are summed as RollupGroupSums sums them (same order of rows and of additions); a group's
 * `_id` is built only when the group is new.
 */
export class RollupAccumulator {
  private readonly groups = new Map<string, RollupGroup>();
  /** The monthly rows by resource (`resourcePipeline`). */
  private readonly resources = new Map<string, RollupGroup>();
  /**
   * By resource (dimensions and resource id): the tags of its last line item and their group. A
   * resource's line items mostly carry the same tags, compared here field by field instead of
   * writing them into the key (JSON of every line item's tags cost ~9 µs a line item).
   */
  private readonly lastOfResource = new Map<string, { tags: unknown; present: boolean; group: RollupGroup }>();
  private readonly classifies: boolean;
  private resourcesDropped = false;

  /** `allocation`: the tenant's model, whose tags and dimensions each group also holds (docs/allocation.md). */
  constructor(
    private readonly allocation: AllocationModel = AllocationModel.EMPTY,
    private readonly maxResourceRows = MAX_RESOURCE_ROWS,
  ) {
    this.classifies = allocation.hasTagKeys || allocation.dimensionNames.length > 0;
  }

  add(docs: readonly object[]): void {
    for (const doc of docs) this.addOne(doc as Record<string, unknown>);
  }

  addOne(doc: Record<string, unknown>): void {
    const start = doc.chargePeriodStart;
    const time = start instanceof Date ? start.getTime() : Number.NaN;
    const fields = this.classifies ? this.allocation.classify(doc) : undefined;
    const dimensions = loadKey(doc);
    const key = `${fields ? allocationKey(fields) : ''}${dimensions}${dayKey(start as Date, time)}`;
    let group = this.groups.get(key);
    if (!group) this.groups.set(owned(key), (group = emptyGroup(owned({ ...idOf(doc, start as Date, time), ...fields }))));
    addAmounts(group, doc);
    if (this.resourcesDropped) return;
    const resource = this.resourceGroup(`${dimensions}${valueKey(doc, 'resourceId')}`, doc);
    if (resource) addAmounts(resource, doc);
  }

  /** The group by resource of a line item: its resource's last one when the tags are the same, else found by the tags' text. */
  private resourceGroup(resource: string, doc: Record<string, unknown>): RollupGroup | undefined {
    const present = 'tags' in doc;
    const last = this.lastOfResource.get(resource);
    if (last && last.present === present && sameTags(last.tags, doc.tags)) return last.group;
    const key = `${resource}${valueKey(doc, 'tags')}`;
    let group = this.resources.get(key);
    if (!group) {
      if (this.resources.size >= this.maxResourceRows) {
        this.resourcesDropped = true;
        this.resources.clear();
        this.lastOfResource.clear();
        return undefined;
      }
      this.resources.set(owned(key), (group = emptyGroup(owned(resourceIdOf(doc)))));
    }
    // the group's own copy of the tags (equal to the line item's), not the line item's
    const tags = group._id.tags;
    if (last) Object.assign(last, { tags, present, group });
    else this.lastOfResource.set(owned(resource), { tags, present, group });
    return group;
  }

  rows(): RollupGroup[] {
    return [...this.groups.values()];
  }

  /** Undefined when there were more than it keeps (MAX_RESOURCE_ROWS): the database sums them then. */
  resourceRows(): RollupGroup[] | undefined {
    return this.resourcesDropped ? undefined : [...this.resources.values()];
  }
}

/**
 * A copy that keeps nothing else alive, for what a load keeps until its end (group keys and ids):
 * a CSV reader's cells are slices of the chunk of text they were parsed from, and V8 keeps a whole
 * chunk alive while any slice of it lives, so groups met all over a file would keep most of its text
 * (a 1,000,000-row FOCUS CSV.gz ran out of a 256 MB heap). Once per group, not per line item.
 */
function owned<T>(value: T): T {
  return structuredClone(value);
}

function addAmounts(group: RollupGroup, doc: Record<string, unknown>): void {
  group.lineItems += 1;
  for (const name of ROLLUP_AMOUNTS) {
    const amount = doc[name];
    if (typeof amount === 'number') group[name] += amount;
  }
}

/**
 * Tags equal as stored: the same `{ group, key, value }` entries (the only fields a line item's tags
 * hold: the readers build them) in the same order; null and undefined alike (both stored as null).
 */
function sameTags(a: unknown, b: unknown): boolean {
  if (a === b || (a == null && b == null)) return true;
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) {
    const x = a[index] as Record<string, unknown> | null;
    const y = b[index] as Record<string, unknown> | null;
    if (x === y) continue;
    if (!x || !y || typeof x !== 'object' || typeof y !== 'object') return false;
    if (x.group !== y.group || x.key !== y.key || x.value !== y.value) return false;
  }
  return true;
}

function emptyGroup(id: Record<string, unknown>): RollupGroup {
  const group = { _id: id, lineItems: 0 } as unknown as RollupGroup;
  for (const name of ROLLUP_AMOUNTS) group[name] = 0;
  return group;
}

/** The group's day: its UTC day number (a 4-digit year), else the ISO day as the group holds it; `''` for no date. */
function dayKey(start: Date, time: number): string {
  if (Number.isNaN(time)) return '';
  if (time >= FIRST_MS && time <= LAST_MS) return `\u0002${Math.floor(time / DAY_MS)}`;
  return `\u0003${start.toISOString().slice(0, 10)}`;
}

function idOf(doc: Record<string, unknown>, start: Date, time: number): Record<string, string | null> {
  const id: Record<string, string | null> = {};
  for (const name of ROLLUP_DIMENSIONS) if (name in doc) id[name] = (doc[name] as string | null | undefined) ?? null;
  id.day = Number.isNaN(time) ? null : start.toISOString().slice(0, 10);
  return id;
}

/** The `_id` of a `resourcePipeline` group: RESOURCE_DIMENSIONS and the line item's own tags. */
function resourceIdOf(doc: Record<string, unknown>): Record<string, unknown> {
  const id: Record<string, unknown> = {};
  for (const name of RESOURCE_DIMENSIONS) if (name in doc) id[name] = (doc[name] as string | null | undefined) ?? null;
  if ('tags' in doc) id.tags = doc.tags ?? null;
  return id;
}

/**
 * The dimensions of a document as one string, telling apart a missing dimension (`a`), a null or
 * undefined one (`n`) and any text (its length, then the text: no two lists give one key).
 */
function loadKey(doc: Record<string, unknown>): string {
  let key = '';
  for (const name of ROLLUP_DIMENSIONS) key += valueKey(doc, name);
  return key;
}

function valueKey(doc: Record<string, unknown>, name: string): string {
  if (!(name in doc)) return 'a';
  const value = doc[name];
  if (value === undefined || value === null) return 'n';
  if (typeof value === 'string') return `${value.length}:${value}`;
  const text = JSON.stringify(value) ?? String(value);
  return `j${text.length}:${text}`;
}
