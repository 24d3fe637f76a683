import { compileExpression, dimensionsRead, ExpressionError } from '../expressions';
import { rollupCanAnswer } from '../rollups/rollup-fields';
import { AllocationModel } from './allocation-model';
import { AllocationProblems } from './allocation.problems';
import type { StoredSplit } from './schemas/allocation-settings.schema';
import { AllocationTarget, CompiledSplit, feedbackOf } from './split-engine';

const DIMENSION_TARGET = /^dimension:([a-z0-9][a-z0-9_-]{0,62})$/;
const TAG_TARGET = /^tag:([^:/]{1,200}):(.{1,200})$/s;

/** `dimension:<name>` or `tag:<group>:<key>` as a target, or undefined. */
export function parseTarget(text: string): AllocationTarget | undefined {
  const dimension = DIMENSION_TARGET.exec(text);
  if (dimension) return { dimension: dimension[1] };
  const tag = TAG_TARGET.exec(text);
  return tag ? { tag: { group: tag[1], key: tag[2] } } : undefined;
}

/**
 * The stored splits compiled against the tenant's allocation: each source must compile and read
 * only what the rollups hold (rolled-up fields, activated tag keys, dimensions), each target must be
 * a dimension or an activated key of one group, fixed percentages must sum to 100, and no split
 * may take back what it or a later one gives. Problems name the split (`splits.<index>`).
 */
export function compileSplits(splits: readonly StoredSplit[], allocation: AllocationModel): CompiledSplit[] {
  const compiled = splits.map((split, index) => {
    const field = (name: string) => `splits.${index}.${name}`;
    let source: Record<string, unknown>;
    try {
      source = compileExpression(split.source) as Record<string, unknown>;
    } catch (error) {
      if (error instanceof ExpressionError) throw AllocationProblems.invalidSplit(field('source'), error.message);
      throw error;
    }
    for (const name of dimensionsRead(source))
      if (!allocation.hasDimension(name)) throw AllocationProblems.invalidSplit(field('source'), `unknown dimension '${name}'`);
    if (!rollupCanAnswer(source, [], allocation))
      throw AllocationProblems.invalidSplit(field('source'), 'a source may read rolled-up fields, activated tag keys and dimensions only');
    const target = parseTarget(split.target);
    if (!target) throw AllocationProblems.invalidSplit(field('target'), 'a target is dimension:<name> or tag:<group>:<key>');
    if ('dimension' in target ? !allocation.hasDimension(target.dimension) : !allocation.tagKeyActive(target.tag.group, target.tag.key))
      throw AllocationProblems.invalidSplit(field('target'), `${split.target} is not a dimension or an activated tag key`);
    if (split.method === 'fixed') {
      const total = split.targets.reduce((sum, entry) => sum + (entry.percent ?? Number.NaN), 0);
      if (!(Math.abs(total - 100) < 1e-9))
        throw AllocationProblems.invalidSplit(field('targets'), 'fixed percentages must each be given and sum to 100');
    }
    return {
      name: split.name,
      source,
      target,
      method: split.method,
      targets: split.targets.map(({ value, percent }) => ({ value, percent })),
    };
  });
  const feedback = feedbackOf(compiled);
  if (feedback)
    throw AllocationProblems.splitCycle(
      `split '${feedback.taker}' would take back what '${feedback.giver}' gives to ${feedback.value}: ` +
        'order the splits so that cost only flows forward',
    );
  return compiled;
}
