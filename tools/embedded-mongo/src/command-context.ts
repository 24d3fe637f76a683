import type { Document } from './bson-values';
import type { CursorRegistry } from './cursors';
import type { Operation, OperationRegistry } from './operation';
import type { ServerParameters } from './parameters';
import type { Storage } from './storage';
import type { EncodedReply } from './wire-protocol';

export interface CommandContext {
  readonly storage: Storage;
  readonly cursors: CursorRegistry;
  readonly parameters: ServerParameters;
  readonly operations: OperationRegistry;
  /** Where the server listens (explain's serverInfo). */
  readonly address: { host: string; port: number };
  /** Target database (`$db`). */
  readonly db: string;
  readonly connectionId: number;
  /** The client's address as mongod reports it (`host:port`). */
  readonly client: string;
  /** The command in progress: its time limit, kill state and cooperative yields. */
  readonly op: Operation;
}

export type Reply = Document | EncodedReply;

/**
 * A command's handler. Commands of one connection run one after the other; long ones yield
 * between slices of work (see operation.ts), so other connections are served meanwhile. Each
 * document change is applied whole and atomically, as in mongod.
 */
export type CommandHandler = (command: Document, context: CommandContext) => Reply | Promise<Reply>;
