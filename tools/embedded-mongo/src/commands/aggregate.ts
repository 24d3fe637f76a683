import { deepClone, isPlainObject, toNumber, type Document } from '../bson-values';
import { EXACT_ACCUMULATORS, rewriteFilterForCollation, type FoldLevel } from '../collation';
import type { Collection, Fetch } from '../collection';
import type { CommandContext, CommandHandler } from '../command-context';
import { CommandError, commandError, notSupported } from '../errors';
import { explainAggregate, type ExplainContext } from '../explain';
import { groupDependencies } from '../group-dependencies';
import { compileGroup } from '../group-stage';
import { FieldSelection } from '../record-codec';
import { countQuery, effectiveCollation, prepareQuery, runQuery, type QueryOutcome, type QueryShape } from '../matching';
import { runStages } from '../pipeline';
import { mingoOptions, refuseUnsupportedOperators, validateSort } from '../query-engine';
import { validateCollectionName } from '../storage';

/** Stages refused outright: they write, need a real server feature, or mingo lacks them. */
const REFUSED_STAGES = new Set([
  '$out',
  '$merge',
  '$changeStream',
  '$collStats',
  '$indexStats',
  '$currentOp',
  '$listSessions',
  '$listLocalSessions',
  '$geoNear',
  '$search',
  '$searchMeta',
  '$vectorSearch',
  '$planCacheStats',
  '$listSearchIndexes',
  '$shardedDataDistribution',
  '$changeStreamSplitLargeEvent',
]);

/** Stages whose argument names another collection of the same database. */
function joinedCollection(stageName: string, argument: unknown): string | undefined {
  if (!isPlainObject(argument)) return typeof argument === 'string' && stageName === '$unionWith' ? argument : undefined;
  if (stageName === '$lookup' || stageName === '$graphLookup') {
    if (argument.from !== undefined && typeof argument.from !== 'string') throw notSupported(`${stageName} from another database`);
    return argument.from as string | undefined;
  }
  if (stageName === '$unionWith') return argument.coll as string | undefined;
  return undefined;
}

/** Validates stage shapes, refuses unsupported stages, and applies collation to `$match`. */
function preparePipeline(pipeline: unknown[], level: FoldLevel, db: string): Document[] {
  return pipeline.map((stage) => {
    if (!isPlainObject(stage) || Object.keys(stage).length !== 1) {
      throw new CommandError(40323, 'A pipeline stage specification object must contain exactly one field.');
    }
    const [name] = Object.keys(stage);
    const argument = stage[name];
    if (REFUSED_STAGES.has(name)) throw notSupported(`the ${name} aggregation stage`);
    const joined = joinedCollection(name, argument);
    if (joined !== undefined) validateCollectionName(db, joined);
    if (name === '$match') {
      if (!isPlainObject(argument)) throw new CommandError(15959, 'the match filter must be an expression in an object');
      refuseUnsupportedOperators(argument);
      return { $match: rewriteFilterForCollation(argument, level) };
    }
    if (name === '$group' && isPlainObject(argument)) {
      const group: Document = {};
      for (const [field, spec] of Object.entries(argument)) {
        const operator = isPlainObject(spec) ? Object.keys(spec)[0] : undefined;
        const exact = operator ? EXACT_ACCUMULATORS[operator] : undefined;
        group[field] = exact && isPlainObject(spec) ? { [exact]: spec[operator as string] } : spec;
      }
      return { $group: group };
    }
    if (name === '$facet' && isPlainObject(argument)) {
      const facets: Document = {};
      for (const [facet, inner] of Object.entries(argument)) {
        if (!Array.isArray(inner)) throw new CommandError(40170, `arguments to $facet must be arrays, ${facet} is type ${typeof inner}`);
        facets[facet] = preparePipeline(inner, level, db);
      }
      return { $facet: facets };
    }
    if ((name === '$lookup' || name === '$unionWith') && isPlainObject(argument) && Array.isArray(argument.pipeline)) {
      return { [name]: { ...argument, pipeline: preparePipeline(argument.pipeline, level, db) } };
    }
    return stage;
  });
}

function collectionResolver(context: CommandContext): (name: string) => Document[] {
  // Joined documents are copies: mingo stages may modify what they are given.
  return (name) => [...(context.storage.getCollection(context.db, name)?.allDocuments() ?? [])].map(deepClone);
}

interface Pushdown {
  filter: Document;
  shape: QueryShape;
  /** The client's stages after those run as the query. */
  remaining: Document[];
}

/** A leading `$match`, then `$sort` (and a `$limit` right after it), run as a query on the indexes. */
function pushdown(clientPipeline: unknown[], hint: unknown): Pushdown {
  const stages = clientPipeline as Document[];
  let position = 0;
  let filter: Document = {};
  const shape: QueryShape = { hint };
  if (stages[0] && '$match' in stages[0]) {
    filter = stages[0].$match as Document;
    position = 1;
  }
  const sortStage = stages[position];
  if (sortStage && '$sort' in sortStage && isPlainObject(sortStage.$sort)) {
    shape.sort = validateSort(sortStage.$sort);
    position++;
    const limitStage = stages[position];
    const limit = limitStage && '$limit' in limitStage ? toNumber(limitStage.$limit) : undefined;
    if (limit !== undefined && Number.isInteger(limit) && limit > 0) {
      shape.limit = limit;
      position++;
    }
  }
  return { filter, shape, remaining: stages.slice(position) };
}

/** `[$group: {_id: <constant>, n: {$sum: 1}}]` or `[$count: 'n']` after the query: a count. */
function countShape(remaining: Document[]): ((n: number) => Document[]) | null {
  if (remaining.length !== 1) return null;
  const [stage] = remaining;
  if (typeof stage.$count === 'string') {
    const field = stage.$count;
    return (n) => (n > 0 ? [{ [field]: n }] : []);
  }
  const group = stage.$group;
  if (!isPlainObject(group)) return null;
  const { _id: id, ...accumulators } = group;
  const names = Object.keys(accumulators);
  const constantId = id === null || typeof id === 'number' || (typeof id === 'string' && !id.startsWith('$'));
  if (!constantId || names.length !== 1) return null;
  const accumulator = accumulators[names[0]];
  if (!isPlainObject(accumulator) || Object.keys(accumulator).length !== 1 || accumulator.$sum !== 1) return null;
  return (n) => (n > 0 ? [{ _id: id, [names[0]]: n }] : []);
}

/**
 * A `$group` right after the query reads only its dependencies: the query decodes those fields of
 * each document, and those it sorts by (a sort the plan does not yield is made on the documents).
 */
function leadingGroupFetch(remaining: Document[], shape: QueryShape): Fetch | undefined {
  const [first] = remaining;
  const fields = first && '$group' in first ? groupDependencies(first.$group) : null;
  if (!fields) return undefined;
  const sortedBy = Object.keys(shape.sort ?? {}).map((path) => path.split('.')[0]);
  return { fields: sortedBy.length ? fields.union(new FieldSelection(sortedBy)) : fields, forWrite: false };
}

interface AggregateRun {
  results: Document[];
  outcome: QueryOutcome | null;
  remaining: Document[];
}

async function runAggregate(command: Document, context: CommandContext): Promise<AggregateRun> {
  const { storage, db, parameters, op } = context;
  if (!Array.isArray(command.pipeline)) {
    throw commandError('TypeMismatch', "'pipeline' option must be specified as an array");
  }
  const target = command.aggregate;
  const databaseLevel = toNumber(target) === 1;
  if (!databaseLevel && typeof target !== 'string') {
    throw commandError('InvalidNamespace', 'Invalid aggregate namespace');
  }
  const collection: Collection | undefined = databaseLevel
    ? undefined
    : storage.getCollection(db, validateCollectionName(db, target as string));
  const collation = effectiveCollation(command.collation, collection);
  const variables = isPlainObject(command.let) ? command.let : undefined;
  const level = collation?.level ?? 0;
  const pipeline = preparePipeline(command.pipeline, level, db);
  const firstStage = pipeline[0];
  if (databaseLevel && !(firstStage && '$documents' in firstStage)) {
    throw notSupported('database-level aggregate other than $documents');
  }
  // $group is computed here (binary string comparison, as mingo's $group) unless a collation applies.
  const pipelineOptions = {
    mingo: { ...mingoOptions({ collation, variables }), collectionResolver: collectionResolver(context) },
    groupHere: collation === null,
  };
  if (databaseLevel) return { results: await runStages(op, pipeline, [], pipelineOptions, false), outcome: null, remaining: pipeline };
  const { filter, shape, remaining } = pushdown(command.pipeline, command.hint);
  const query = prepareQuery(filter, collation, variables);
  const ns = `${db}.${String(target)}`;
  const asCount = shape.sort === undefined && command.explain !== true ? countShape(remaining) : null;
  if (asCount)
    return { results: asCount((await countQuery(op, parameters, ns, collection, query, shape.hint)).n), outcome: null, remaining };
  const stages = pipeline.slice(pipeline.length - remaining.length);
  const fetch = leadingGroupFetch(remaining, shape);
  // a leading `$group` reduces the documents as the query finds them: none is held until the end
  const group =
    fetch && shape.sort === undefined && command.explain !== true && pipelineOptions.groupHere
      ? compileGroup(stages[0], pipelineOptions.mingo)
      : null;
  if (group) {
    const computation = group.start();
    const outcome = await runQuery(op, parameters, ns, collection, query, shape, fetch, (doc) => computation.add(doc));
    const groups = await computation.results(op);
    return { results: await runStages(op, stages.slice(1), groups, pipelineOptions, false), outcome, remaining };
  }
  const outcome = await runQuery(op, parameters, ns, collection, query, shape, fetch);
  if (stages.length === 0) return { results: outcome.docs, outcome, remaining };
  return { results: await runStages(op, stages, outcome.docs, pipelineOptions, true), outcome, remaining };
}

const aggregate: CommandHandler = async (command, context) => {
  if (command.explain === true) {
    const { host, port } = context.address;
    context.op.usesPlanCache = false;
    return explainAggregateCommand(command, context, { verbosity: 'queryPlanner', command, host, port });
  }
  if (!isPlainObject(command.cursor)) {
    if (!Array.isArray(command.pipeline)) throw commandError('TypeMismatch', "'pipeline' option must be specified as an array");
    throw commandError('FailedToParse', "The 'cursor' option is required, except for aggregate with the explain argument");
  }
  const batchSize = toNumber(command.cursor.batchSize);
  const { results } = await runAggregate(command, context);
  const target = command.aggregate;
  const ns = toNumber(target) === 1 ? `${context.db}.$cmd.aggregate` : `${context.db}.${String(target)}`;
  return context.cursors.openCursor(context.op, ns, results, { batchSize });
};

export async function explainAggregateCommand(command: Document, context: CommandContext, explain: ExplainContext): Promise<Document> {
  const { results, outcome, remaining } = await runAggregate({ ...command, explain: true }, context);
  return explainAggregate(explain, outcome, remaining, results.length);
}

export const aggregateCommands: Record<string, CommandHandler> = { aggregate };
