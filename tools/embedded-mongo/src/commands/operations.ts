import { Long } from 'bson';
import { toNumber, type Document } from '../bson-values';
import type { CommandHandler } from '../command-context';
import { commandError } from '../errors';
import type { Operation } from '../operation';
import { compileFilter } from '../query-engine';

function requireAdmin(db: string, command: string): void {
  if (db !== 'admin') throw commandError('Unauthorized', `${command} may only be run against the admin database.`);
}

/** mongod's `op` field of currentOp: the kind of operation. */
function opType(name: string): string {
  switch (name) {
    case 'find':
      return 'query';
    case 'getMore':
      return 'getmore';
    case 'insert':
      return 'insert';
    case 'update':
      return 'update';
    case 'delete':
      return 'remove';
    default:
      return 'command';
  }
}

const COLLECTION_COMMANDS = new Set([
  'find',
  'aggregate',
  'count',
  'distinct',
  'insert',
  'update',
  'delete',
  'findAndModify',
  'findandmodify',
  'createIndexes',
  'listIndexes',
  'drop',
]);

function namespaceOf(operation: Operation): string {
  const { command, name } = operation;
  const db = typeof command.$db === 'string' ? command.$db : 'admin';
  if (name === 'getMore' && typeof command.collection === 'string') return `${db}.${command.collection}`;
  const target = command[name];
  return COLLECTION_COMMANDS.has(name) && typeof target === 'string' ? `${db}.${target}` : `${db}.$cmd`;
}

/** The command as currentOp shows it (document sequences are not repeated). */
function shownCommand(command: Document): Document {
  const shown: Document = {};
  for (const [key, value] of Object.entries(command)) if (!Array.isArray(value) || value.length <= 10) shown[key] = value;
  return shown;
}

function describe(operation: Operation, host: string): Document {
  const micros = Math.round((performance.now() - operation.started) * 1000);
  return {
    type: 'op',
    host,
    desc: `conn${operation.connectionId}`,
    connectionId: operation.connectionId,
    client: operation.client,
    active: true,
    currentOpTime: new Date().toISOString(),
    opid: operation.opid,
    secs_running: Long.fromNumber(Math.floor(micros / 1_000_000)),
    microsecs_running: Long.fromNumber(micros),
    op: opType(operation.name),
    ns: namespaceOf(operation),
    command: shownCommand(operation.command),
    numYields: operation.numYields,
    killPending: operation.killed,
    waitingForLock: false,
  };
}

/** `currentOp`: the operations in progress, filtered by the command's other fields. */
const currentOp: CommandHandler = (command, { db, operations, address }) => {
  requireAdmin(db, 'currentOp');
  const filter: Document = {};
  for (const [key, value] of Object.entries(command)) {
    if (key === 'currentOp' || key.startsWith('$') || key === 'lsid' || key === 'comment' || key === 'maxTimeMS') continue;
    filter[key] = value;
  }
  const matcher = compileFilter(filter, { collation: null });
  const host = `${address.host}:${address.port}`;
  const inprog = operations
    .all()
    .map((operation) => describe(operation, host))
    .filter((entry) => matcher.test(entry));
  return { inprog, ok: 1 };
};

/** `killOp`: the operation stops at its next interruption check with mongod's error 11601. */
const killOp: CommandHandler = (command, { db, operations }) => {
  requireAdmin(db, 'killOp');
  if (command.op === undefined) throw commandError('NoSuchKey', 'Missing expected field "op"');
  const opid = toNumber(command.op);
  if (opid === undefined || !Number.isInteger(opid))
    throw commandError('TypeMismatch', '"op" had the wrong type. Expected long, found ' + typeof command.op);
  operations.get(opid)?.kill(commandError('Interrupted', 'operation was interrupted'));
  return { info: 'attempting to kill op', ok: 1 };
};

export const operationCommands: Record<string, CommandHandler> = { currentOp, killOp };
