import type { Document } from './bson-values';
import type { CursorRegistry } from './cursors';
import type { ServerParameters } from './parameters';
import type { Storage } from './storage';

export interface CommandContext {
  readonly storage: Storage;
  readonly cursors: CursorRegistry;
  readonly parameters: ServerParameters;
  /** Where the server listens (explain's serverInfo). */
  readonly address: { host: string; port: number };
  /** Target database (`$db`). */
  readonly db: string;
  readonly connectionId: number;
}

/** Handlers run synchronously, so commands on one connection apply in order and atomically. */
export type CommandHandler = (command: Document, context: CommandContext) => Document;
