import { isPlainObject, type Document } from '../bson-values';
import type { CommandHandler } from '../command-context';
import { commandError } from '../errors';
import { ServerParameters } from '../parameters';

/** Fields every command may carry that are not parameter names. */
const GENERIC_ARGUMENTS = new Set([
  '$db',
  'lsid',
  '$clusterTime',
  '$readPreference',
  'comment',
  'apiVersion',
  'apiStrict',
  'apiDeprecationErrors',
  'maxTimeMS',
]);

function requireAdmin(db: string, command: string): void {
  if (db !== 'admin') throw commandError('Unauthorized', `${command} may only be run against the admin database.`);
}

const setParameter: CommandHandler = (command, { db, parameters }) => {
  requireAdmin(db, 'setParameter');
  const names = Object.keys(command).filter((name) => name !== 'setParameter' && !GENERIC_ARGUMENTS.has(name));
  if (names.length === 0) throw commandError('InvalidOptions', 'no option found to set, use help:true to see options ');
  // Every value is checked before any is applied.
  const scratch = new ServerParameters();
  for (const name of names) scratch.set(name, command[name]);
  const was = parameters.values()[names[0]];
  for (const name of names) parameters.set(name, command[name]);
  return { was, ok: 1 };
};

const getParameter: CommandHandler = (command, { db, parameters }) => {
  requireAdmin(db, 'getParameter');
  const all = parameters.values();
  const selector = command.getParameter;
  if (selector === '*' || (isPlainObject(selector) && selector.allParameters === true)) return { ...all, ok: 1 };
  const wanted = Object.keys(command).filter((name) => name !== 'getParameter' && !GENERIC_ARGUMENTS.has(name));
  const reply: Document = {};
  for (const name of wanted) if (name in all) reply[name] = all[name];
  if (Object.keys(reply).length === 0) throw commandError('InvalidOptions', 'no option found to get');
  return { ...reply, ok: 1 };
};

export const parameterCommands: Record<string, CommandHandler> = { setParameter, getParameter };
