import * as net from 'node:net';
import type { Document } from './bson-values';
import { CursorRegistry } from './cursors';
import { runCommand, type ServerState } from './dispatcher';
import { codeNameFor, ErrorCode } from './errors';
import { OperationRegistry } from './operation';
import { ServerParameters, type ParameterName } from './parameters';
import { DataDirectory, type DataDirectoryOptions } from './persistence/data-directory';
import { Storage } from './storage';
import {
  buildLegacyReply,
  buildMsgReply,
  EncodedReply,
  MessageReader,
  MSG_MORE_TO_COME,
  parseMessage,
  type IncomingMessage,
} from './wire-protocol';

/** Commands mongod still accepts over legacy OP_QUERY (the connection handshake). */
const OP_QUERY_COMMANDS = new Set(['hello', 'isMaster', 'ismaster']);

function legacyOpQueryRefusal(name: string): Document {
  const code = ErrorCode.UnsupportedOpQueryCommand;
  return {
    ok: 0,
    errmsg:
      `Unsupported OP_QUERY command: ${name}. The client driver may require an upgrade. ` +
      `For more details see https://dochub.mongodb.org/core/legacy-opcode-removal`,
    code,
    codeName: codeNameFor(code),
  };
}

function safeReply(build: () => Buffer, fallback: (error: unknown) => Buffer): Buffer {
  try {
    return build();
  } catch (error) {
    return fallback(error);
  }
}

export interface EmbeddedMongoOptions extends DataDirectoryOptions {
  /** Keep the data in this directory (journal + checkpoints); without it the server is in memory only. */
  dataDir?: string;
  /** Start with mongod's `notablescan` parameter set. */
  notablescan?: boolean;
  /** Other server parameters at start (mongod's `--setParameter name=value`). */
  parameters?: Partial<Record<ParameterName, boolean | number>>;
}

/** Write concern asking for the journal on disk before the reply (`j: true`, or `w: "majority"` on a standalone). */
function wantsJournal(command: Document): boolean {
  const concern = command.writeConcern;
  if (concern === null || typeof concern !== 'object') return false;
  const { j, w } = concern as Document;
  return j === true || w === 'majority';
}

export class EmbeddedMongo {
  private readonly storage = new Storage();
  private readonly parameters: ServerParameters;
  private readonly cursors: CursorRegistry;
  private readonly operations = new OperationRegistry();
  private readonly dataDirectory: DataDirectory | null;
  private readonly sockets = new Set<net.Socket>();
  private readonly server = net.createServer((socket) => this.accept(socket));
  private address = { host: '127.0.0.1', port: 0 };
  private nextConnectionId = 1;
  private nextRequestId = 1;

  constructor(options: EmbeddedMongoOptions = {}) {
    this.parameters = new ServerParameters({
      ...options.parameters,
      ...(options.notablescan !== undefined ? { notablescan: options.notablescan } : {}),
    });
    this.cursors = new CursorRegistry(() => this.parameters.cursorTimeoutMillis);
    this.dataDirectory = options.dataDir ? new DataDirectory(options.dataDir, this.storage, options) : null;
  }

  /** Recovers the data directory (if any), then accepts connections. */
  listen(host: string, port: number): Promise<number> {
    this.dataDirectory?.open();
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        this.address = { host, port: (this.server.address() as net.AddressInfo).port };
        resolve(this.address.port);
      });
    });
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    this.cursors.closeAll();
    await closed;
    await this.dataDirectory?.close();
  }

  /** Writes a checkpoint now (tests, and callers that want a fast next start). */
  async checkpoint(): Promise<void> {
    await this.dataDirectory?.checkpoint();
  }

  private accept(socket: net.Socket): void {
    socket.setNoDelay(true);
    this.sockets.add(socket);
    const state: ServerState = {
      storage: this.storage,
      cursors: this.cursors,
      parameters: this.parameters,
      operations: this.operations,
      address: this.address,
      connectionId: this.nextConnectionId++,
      client: `${socket.remoteAddress ?? '127.0.0.1'}:${socket.remotePort ?? 0}`,
    };
    const reader = new MessageReader();
    // Messages of one connection are handled one after the other, in order.
    let queue: Promise<void> = Promise.resolve();
    socket.on('data', (chunk: Buffer) => {
      try {
        for (const raw of reader.push(chunk)) {
          const message = parseMessage(raw);
          const receivedAt = performance.now();
          queue = queue.then(() => this.handle(socket, message, state, receivedAt));
        }
      } catch {
        // Malformed framing: mongod drops the connection too.
        socket.destroy();
      }
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      this.sockets.delete(socket);
      // The client is gone: its operations stop at their next check, its cursors are freed.
      this.operations.killConnection(state.connectionId);
      this.cursors.closeConnection(state.connectionId);
    });
  }

  private async handle(socket: net.Socket, message: IncomingMessage, state: ServerState, receivedAt: number): Promise<void> {
    const requestId = this.nextRequestId++;
    const responseTo = message.header.requestId;
    // a command whose client went away while it waited is not run
    if (socket.destroyed) return;
    if (message.kind === 'unsupported') {
      // OP_COMPRESSED is never advertised; other legacy opcodes were removed from mongod.
      socket.destroy();
      return;
    }
    if (message.kind === 'query') {
      const name = Object.keys(message.query)[0] ?? '';
      const db = message.collection.endsWith('.$cmd') ? message.collection.slice(0, -'.$cmd'.length) : '';
      const reply = OP_QUERY_COMMANDS.has(name) && db ? await runCommand({ ...message.query, $db: db }, state) : legacyOpQueryRefusal(name);
      socket.write(buildLegacyReply(requestId, responseTo, reply instanceof EncodedReply ? legacyOpQueryRefusal(name) : reply));
      return;
    }
    const reply = await runCommand(message.command, state, receivedAt);
    // Every change the command made reaches the operating system before it is acknowledged.
    this.dataDirectory?.flush();
    if (message.flags & MSG_MORE_TO_COME) return; // unacknowledged write (w: 0): no reply expected
    const send = (): void => {
      if (socket.destroyed) return;
      socket.write(
        safeReply(
          () => buildMsgReply(requestId, responseTo, reply),
          (error) =>
            buildMsgReply(requestId, responseTo, {
              ok: 0,
              errmsg: `reply could not be encoded: ${error instanceof Error ? error.message : String(error)}`,
              code: ErrorCode.InternalError,
              codeName: codeNameFor(ErrorCode.InternalError),
            }),
        ),
      );
    };
    if (this.dataDirectory && wantsJournal(message.command)) await this.dataDirectory.sync().then(send);
    else send();
  }
}
