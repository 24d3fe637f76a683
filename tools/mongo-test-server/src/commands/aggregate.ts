import { Aggregator } from 'mingo';
import { deepClone, isPlainObject, toNumber, type Document } from '../bson-values';
import { EXACT_ACCUMULATORS, rewriteFilterForCollation, type FoldLevel } from '../collation';
import type { CommandContext, CommandHandler } from '../command-context';
import { CommandError, commandError, notSupported, toCommandError } from '../errors';
import { effectiveCollation, findMatching, prepareQuery } from '../matching';
import { mingoOptions, refuseUnsupportedOperators } from '../query-engine';
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

const aggregate: CommandHandler = (command, context) => {
  const { storage, db, cursors } = context;
  if (command.explain === true) throw notSupported('explain');
  if (!Array.isArray(command.pipeline)) {
    throw commandError('TypeMismatch', "'pipeline' option must be specified as an array");
  }
  if (!isPlainObject(command.cursor)) {
    throw commandError('FailedToParse', "The 'cursor' option is required, except for aggregate with the explain argument");
  }
  const batchSize = toNumber(command.cursor.batchSize);
  const target = command.aggregate;
  const databaseLevel = toNumber(target) === 1;
  if (!databaseLevel && typeof target !== 'string') {
    throw commandError('InvalidNamespace', 'Invalid aggregate namespace');
  }
  const collection = databaseLevel ? undefined : storage.getCollection(db, validateCollectionName(db, target as string));
  const collation = effectiveCollation(command.collation, collection);
  const variables = isPlainObject(command.let) ? command.let : undefined;
  const level = collation?.level ?? 0;
  const pipeline = preparePipeline(command.pipeline, level, db);
  const firstStage = pipeline[0];
  if (databaseLevel && !(firstStage && '$documents' in firstStage)) {
    throw notSupported('database-level aggregate other than $documents');
  }

  // A leading $match runs through the server's own matcher (index lookups, collation).
  let input: Document[] = [];
  let stages = pipeline;
  if (collection) {
    const leadingMatch = firstStage && '$match' in firstStage ? (command.pipeline[0] as Document).$match : undefined;
    const query = prepareQuery(leadingMatch ?? {}, collation, variables);
    input = findMatching(collection, query).map(deepClone);
    if (leadingMatch !== undefined) stages = pipeline.slice(1);
  }
  let results: Document[];
  try {
    const options = { ...mingoOptions({ collation, variables }), collectionResolver: collectionResolver(context) };
    results = new Aggregator(stages, options).run<Document>(input);
  } catch (error) {
    throw toCommandError(error);
  }
  const ns = databaseLevel ? `${db}.$cmd.aggregate` : `${db}.${String(target)}`;
  return { ...cursors.openCursor(ns, results, batchSize), ok: 1 };
};

export const aggregateCommands: Record<string, CommandHandler> = { aggregate };
