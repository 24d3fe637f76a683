import { commandError } from '../errors';
import { MAX_BSON_OBJECT_BYTES, MAX_MESSAGE_BYTES } from '../wire-protocol';
import type { CommandHandler } from '../command-context';

export const SERVER_VERSION = '7.0.0';
const MAX_WIRE_VERSION = 21;

/**
 * Standalone server description. `topologyVersion` is left out on purpose: without it the
 * driver polls `hello` instead of using streaming (exhaust) monitoring.
 */
function helloReply(connectionId: number, legacy: boolean): Record<string, unknown> {
  return {
    helloOk: true,
    ...(legacy ? { ismaster: true } : { isWritablePrimary: true }),
    maxBsonObjectSize: MAX_BSON_OBJECT_BYTES,
    maxMessageSizeBytes: MAX_MESSAGE_BYTES,
    maxWriteBatchSize: 100_000,
    localTime: new Date(),
    logicalSessionTimeoutMinutes: 30,
    connectionId,
    minWireVersion: 0,
    maxWireVersion: MAX_WIRE_VERSION,
    readOnly: false,
    ok: 1,
  };
}

const hello: CommandHandler = (_command, context) => helloReply(context.connectionId, false);
const isMaster: CommandHandler = (_command, context) => helloReply(context.connectionId, true);

const buildInfo: CommandHandler = () => ({
  version: SERVER_VERSION,
  gitVersion: 'embedded-mongo',
  versionArray: [7, 0, 0, 0],
  bits: 64,
  debug: false,
  maxBsonObjectSize: MAX_BSON_OBJECT_BYTES,
  storageEngines: ['memory'],
  modules: [],
  ok: 1,
});

const ping: CommandHandler = () => ({ ok: 1 });

/** Sessions carry no server state here (no transactions on a standalone). */
const endSessions: CommandHandler = (command) => {
  if (!Array.isArray(command.endSessions)) {
    throw commandError('TypeMismatch', "BSON field 'endSessions.endSessions' is the wrong type, expected type 'array'");
  }
  return { ok: 1 };
};

export const handshakeCommands: Record<string, CommandHandler> = {
  hello,
  isMaster,
  ismaster: isMaster,
  buildInfo,
  buildinfo: buildInfo,
  ping,
  endSessions,
};
