import { dimensionsKey, RollupGroup } from './rollup-fields';
import { ROLLUP_AMOUNTS, ROLLUP_DIMENSIONS } from './schemas/cost-rollup.schema';

/**
 * The rollup rows of line items as a load writes them, summed in memory: what `rollupPipeline`
 * would compute from the stored rows, without reading them back. A field the document holds as
 * `undefined` is stored as `null` by the driver, so it counts as `null`; an absent one stays absent.
 */
export class RollupAccumulator {
  private readonly groups = new Map<string, RollupGroup>();

  add(docs: readonly object[]): void {
    for (const doc of docs as Record<string, unknown>[]) {
      const id: Record<string, string | null> = {};
      for (const name of ROLLUP_DIMENSIONS) if (name in doc) id[name] = (doc[name] as string | null | undefined) ?? null;
      const start = doc.chargePeriodStart;
      id.day = start instanceof Date && !Number.isNaN(start.getTime()) ? start.toISOString().slice(0, 10) : null;
      const key = `${dimensionsKey(id)}${id.day ?? ''}`;
      let group = this.groups.get(key);
      if (!group) {
        group = { _id: id, lineItems: 0 } as unknown as RollupGroup;
        for (const name of ROLLUP_AMOUNTS) group[name] = 0;
        this.groups.set(key, group);
      }
      group.lineItems += 1;
      for (const name of ROLLUP_AMOUNTS) if (typeof doc[name] === 'number') group[name] += doc[name] as number;
    }
  }

  rows(): RollupGroup[] {
    return [...this.groups.values()];
  }
}
