import { Aggregator } from 'mingo';
import { deepClone, type Document } from './bson-values';
import { toCommandError } from './errors';
import { compileGroup } from './group-stage';
import type { Operation } from './operation';

/** Stages that never modify the documents they receive, so stored documents need no copy. */
const NON_MUTATING_STAGES = new Set(['$group', '$count', '$sortByCount', '$sort', '$limit', '$skip', '$project', '$match']);

/** Stages computed document by document: they run on slices of their input, yielding in between. */
const PER_DOCUMENT_STAGES = new Set([
  '$match',
  '$project',
  '$addFields',
  '$set',
  '$unset',
  '$replaceRoot',
  '$replaceWith',
  '$unwind',
  '$redact',
]);

const stageName = (stage: Document): string => Object.keys(stage)[0];

export interface PipelineOptions {
  /** mingo options of the command (collation, `let` variables, collection resolver). */
  mingo: Document;
  /** Whether `$group` can be computed here (not under a collation, whose string grouping only mingo applies). */
  groupHere: boolean;
}

/**
 * Runs aggregation stages cooperatively: `$group` is computed here incrementally, `$facet`
 * runs each of its pipelines the same way, document-by-document stages run through mingo on
 * slices of their input, and the other stages (`$sort`, `$lookup`, `$bucket`, ...) through mingo
 * on their whole input at once (they usually see the few documents a `$group` left).
 */
export async function runStages(
  op: Operation,
  stages: Document[],
  input: Document[],
  options: PipelineOptions,
  stored: boolean,
): Promise<Document[]> {
  const firstIsGroup =
    stages.length > 0 && options.groupHere && stageName(stages[0]) === '$group' && compileGroup(stages[0], options.mingo) !== null;
  let docs = input;
  // Stored documents are never handed to a stage that may modify them: they are copied first.
  if (stored && !firstIsGroup && !stages.every((stage) => NON_MUTATING_STAGES.has(stageName(stage)))) {
    docs = [];
    for (const doc of input) {
      docs.push(deepClone(doc));
      if (op.tick()) await op.yieldTurn();
    }
  }
  let position = 0;
  while (position < stages.length) {
    const stage = stages[position];
    const name = stageName(stage);
    const group = name === '$group' && options.groupHere ? compileGroup(stage, options.mingo) : null;
    if (group) {
      docs = await group.run(op, docs);
      position++;
      continue;
    }
    if (name === '$facet') {
      const facets = stage.$facet as Record<string, Document[]>;
      const out: Document = {};
      // Each facet sees the same input: one that may modify documents works on copies.
      for (const [facet, inner] of Object.entries(facets)) out[facet] = await runStages(op, inner, docs, options, true);
      docs = [out];
      position++;
      continue;
    }
    let end = position + 1;
    if (PER_DOCUMENT_STAGES.has(name)) {
      while (end < stages.length && PER_DOCUMENT_STAGES.has(stageName(stages[end]))) end++;
      docs = await runInSlices(op, stages.slice(position, end), docs, options.mingo);
    } else {
      while (end < stages.length && !handledHere(stages[end], options)) end++;
      docs = runWhole(stages.slice(position, end), docs, options.mingo);
    }
    position = end;
  }
  return docs;
}

function handledHere(stage: Document, options: PipelineOptions): boolean {
  const name = stageName(stage);
  return (
    PER_DOCUMENT_STAGES.has(name) ||
    name === '$facet' ||
    (name === '$group' && options.groupHere && compileGroup(stage, options.mingo) !== null)
  );
}

function runWhole(stages: Document[], input: Document[], mingo: Document): Document[] {
  try {
    return new Aggregator(stages, mingo).run<Document>(input);
  } catch (error) {
    throw toCommandError(error);
  }
}

/** Runs per-document stages over slices of the input sized to the yield period. */
async function runInSlices(op: Operation, stages: Document[], input: Document[], mingo: Document): Promise<Document[]> {
  // One aggregator for every slice: its variables ($$NOW included) stay those of the command.
  let aggregator: Aggregator;
  try {
    aggregator = new Aggregator(stages, mingo);
  } catch (error) {
    throw toCommandError(error);
  }
  const out: Document[] = [];
  let size = 64;
  // the slice's end is taken before the size changes: each document is processed exactly once
  for (let start = 0, end = 0; start < input.length; start = end) {
    end = Math.min(start + size, input.length);
    const began = performance.now();
    let results: Document[];
    try {
      results = aggregator.run<Document>(input.slice(start, end));
    } catch (error) {
      throw toCommandError(error);
    }
    for (const doc of results) out.push(doc);
    const spent = performance.now() - began;
    size = spent < 0.5 ? Math.min(size * 2, 8192) : spent > 2 ? Math.max(size >> 1, 8) : size;
    if (op.due()) await op.yieldTurn();
  }
  return out;
}
