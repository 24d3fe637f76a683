import type { Document } from './bson-values';
import type { CommandContext, CommandHandler, Reply } from './command-context';
import { aggregateCommands } from './commands/aggregate';
import { explainCommands } from './commands/explain';
import { collectionCommands } from './commands/collections';
import { findAndModifyCommands } from './commands/find-and-modify';
import { handshakeCommands } from './commands/handshake';
import { indexCommands } from './commands/indexes';
import { readCommands } from './commands/reads';
import { writeCommands } from './commands/writes';
import { commandError, notSupported, toCommandError } from './errors';
import { parseMaxTimeMS, type Operation } from './operation';
import { operationCommands } from './commands/operations';
import { parameterCommands } from './commands/parameters';
import { validateDatabaseName } from './storage';

const handlers: Record<string, CommandHandler> = {
  ...handshakeCommands,
  ...collectionCommands,
  ...indexCommands,
  ...writeCommands,
  ...readCommands,
  ...findAndModifyCommands,
  ...aggregateCommands,
  ...explainCommands,
  ...parameterCommands,
  ...operationCommands,
};

/** Real mongod commands this server refuses (anything else unknown is CommandNotFound). */
const REFUSED_COMMANDS = new Set([
  'mapReduce',
  'collMod',
  'validate',
  'compact',
  'createUser',
  'dropUser',
  'updateUser',
  'saslStart',
  'saslContinue',
  'authenticate',
  'logout',
  'shutdown',
  'fsync',
  'serverStatus',
  'createView',
  'createSearchIndexes',
  'cloneCollectionAsCapped',
  'convertToCapped',
  'replSetGetStatus',
  'getLog',
  'hostInfo',
  'connectionStatus',
  'whatsmyuri',
  'startSession',
  'refreshSessions',
  'killSessions',
  'killAllSessions',
  'getMoreAll',
]);

const TRANSACTION_COMMANDS = new Set(['commitTransaction', 'abortTransaction']);

function refuseTransactions(name: string, command: Document): void {
  if (
    TRANSACTION_COMMANDS.has(name) ||
    command.txnNumber !== undefined ||
    command.startTransaction !== undefined ||
    command.autocommit !== undefined
  ) {
    // Exactly what a standalone mongod answers: transactions need a replica set.
    throw commandError('IllegalOperation', 'Transaction numbers are only allowed on a replica set member or mongos');
  }
}

export type ServerState = Omit<CommandContext, 'db' | 'op'>;

/** Commands whose `maxTimeMS` is not a limit of their own (getMore continues its cursor's). */
const OWN_TIME_LIMIT = new Set(['getMore']);

/**
 * Runs one command document and always resolves to a reply (errors in mongod's shape). The
 * command runs as an operation (currentOp, killOp) limited by its `maxTimeMS`, counted from
 * `receivedAt` (when it was read off the connection): a command whose limit ran out while it
 * waited fails with MaxTimeMSExpired before doing any of its work.
 */
export async function runCommand(command: Document, state: ServerState, receivedAt = performance.now()): Promise<Reply> {
  let op: Operation | undefined;
  try {
    const name = Object.keys(command)[0];
    if (name === undefined || name === '$db') throw commandError('FailedToParse', 'Empty command');
    const db = command.$db;
    if (typeof db !== 'string') throw commandError('FailedToParse', "BSON field '$db' is missing but a required field");
    validateDatabaseName(db);
    refuseTransactions(name, command);
    const handler = handlers[name];
    if (!handler) {
      if (REFUSED_COMMANDS.has(name)) throw notSupported(`the ${name} command`);
      throw commandError('CommandNotFound', `no such command: '${name}'`);
    }
    op = state.operations.start(state.connectionId, state.client, command, state.parameters.internalQueryExecYieldPeriodMS, receivedAt);
    if (!OWN_TIME_LIMIT.has(name)) {
      op.limitTo(parseMaxTimeMS(command));
      op.checkForInterrupt();
    }
    return await handler(command, { ...state, db, op });
  } catch (error) {
    return toCommandError(error).toReply();
  } finally {
    if (op) state.operations.finish(op);
  }
}
