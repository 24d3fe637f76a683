import * as net from 'node:net';
import type { Document } from './bson-values';
import { CursorRegistry } from './cursors';
import { runCommand, type ServerState } from './dispatcher';
import { codeNameFor, ErrorCode } from './errors';
import { Storage } from './storage';
import { buildLegacyReply, buildMsgReply, MessageReader, MSG_MORE_TO_COME, parseMessage, type IncomingMessage } from './wire-protocol';

/** Commands mongod still accepts over legacy OP_QUERY (the connection handshake). */
const OP_QUERY_COMMANDS = new Set(['hello', 'isMaster', 'ismaster']);

function legacyOpQueryRefusal(name: string): Document {
  const code = ErrorCode.UnsupportedOpQueryCommand;
  return {
    ok: 0,
    errmsg: `Unsupported OP_QUERY command: ${name}. The client driver may require an upgrade. For more details see https://dochub.mongodb.org/core/legacy-opcode-removal`,
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

export class MongoTestServer {
  private readonly storage = new Storage();
  private readonly cursors = new CursorRegistry();
  private readonly sockets = new Set<net.Socket>();
  private readonly server = net.createServer((socket) => this.accept(socket));
  private nextConnectionId = 1;
  private nextRequestId = 1;

  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve((this.server.address() as net.AddressInfo).port);
      });
    });
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    this.cursors.closeAll();
    await closed;
  }

  private accept(socket: net.Socket): void {
    socket.setNoDelay(true);
    this.sockets.add(socket);
    const state: ServerState = { storage: this.storage, cursors: this.cursors, connectionId: this.nextConnectionId++ };
    const reader = new MessageReader();
    socket.on('data', (chunk: Buffer) => {
      try {
        for (const raw of reader.push(chunk)) this.handle(socket, parseMessage(raw), state);
      } catch {
        // Malformed framing: mongod drops the connection too.
        socket.destroy();
      }
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.sockets.delete(socket));
  }

  private handle(socket: net.Socket, message: IncomingMessage, state: ServerState): void {
    const requestId = this.nextRequestId++;
    const responseTo = message.header.requestId;
    if (message.kind === 'unsupported') {
      // OP_COMPRESSED is never advertised; other legacy opcodes were removed from mongod.
      socket.destroy();
      return;
    }
    if (message.kind === 'query') {
      const name = Object.keys(message.query)[0] ?? '';
      const db = message.collection.endsWith('.$cmd') ? message.collection.slice(0, -'.$cmd'.length) : '';
      const reply = OP_QUERY_COMMANDS.has(name) && db ? runCommand({ ...message.query, $db: db }, state) : legacyOpQueryRefusal(name);
      socket.write(buildLegacyReply(requestId, responseTo, reply));
      return;
    }
    const reply = runCommand(message.command, state);
    if (message.flags & MSG_MORE_TO_COME) return; // unacknowledged write (w: 0): no reply expected
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
  }
}
