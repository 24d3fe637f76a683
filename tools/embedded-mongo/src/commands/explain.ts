import { isPlainObject, type Document } from '../bson-values';
import type { CommandContext, CommandHandler } from '../command-context';
import { commandError } from '../errors';
import { parseVerbosity, type ExplainContext } from '../explain';
import { parseMaxTimeMS } from '../operation';
import { explainAggregateCommand } from './aggregate';
import { explainFindAndModify } from './find-and-modify';
import { explainCountCommand, explainDistinct, explainFind } from './reads';
import { explainWrite } from './writes';

type Explainer = (command: Document, context: CommandContext, explain: ExplainContext) => Promise<Document>;

const explainers: Record<string, Explainer> = {
  find: explainFind,
  aggregate: explainAggregateCommand,
  count: explainCountCommand,
  distinct: explainDistinct,
  update: explainWrite,
  delete: explainWrite,
  findAndModify: explainFindAndModify,
  findandmodify: explainFindAndModify,
};

/** `{explain: {<command>}, verbosity}`: the plan mongod would run, and with executionStats its counters. */
const explain: CommandHandler = (command, context) => {
  const inner = command.explain;
  if (!isPlainObject(inner)) throw commandError('TypeMismatch', "BSON field 'explain.explain' is the wrong type, expected type 'object'");
  const name = Object.keys(inner)[0];
  const explainer = name === undefined ? undefined : explainers[name];
  if (!explainer) throw commandError('CommandNotFound', `Explain failed due to unknown command: ${String(name)}`);
  const verbosity = parseVerbosity(command.verbosity);
  // The explained command's own maxTimeMS limits the explain too (as well as the explain's).
  context.op.limitTo(parseMaxTimeMS(inner));
  const { host, port } = context.address;
  const explained: Document = { ...inner, $db: context.db };
  context.op.usesPlanCache = false;
  return explainer(inner, context, { verbosity, command: explained, host, port });
};

export const explainCommands: Record<string, CommandHandler> = { explain };
