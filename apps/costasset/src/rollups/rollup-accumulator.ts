import { dimensionsKey, RollupGroup, RollupGroupSums } from './rollup-fields';
import { ROLLUP_DIMENSIONS } from './schemas/cost-rollup.schema';

/**
 * The rollup rows of line items as a load writes them, summed in memory: what `rollupPipeline`
 * would compute from the stored rows, without reading them back. A field the document holds as
 * `undefined` is stored as `null` by the driver, so it counts as `null`; an absent one stays absent.
 */
export class RollupAccumulator {
  private readonly sums = new RollupGroupSums();

  add(docs: readonly object[]): void {
    for (const doc of docs as Record<string, unknown>[]) {
      const id: Record<string, string | null> = {};
      for (const name of ROLLUP_DIMENSIONS) if (name in doc) id[name] = (doc[name] as string | null | undefined) ?? null;
      const start = doc.chargePeriodStart;
      id.day = start instanceof Date && !Number.isNaN(start.getTime()) ? start.toISOString().slice(0, 10) : null;
      this.sums.add(`${dimensionsKey(id)}${id.day ?? ''}`, id, 1, doc);
    }
  }

  rows(): RollupGroup[] {
    return this.sums.rows();
  }
}
