import { Injectable, Logger } from '@nestjs/common';
import { JSONCodec, NatsError, Subscription } from 'nats';
import { ProblemException } from '@lib/http/problem/problem';
import { Events, EventSubject, ReplyEnvelope, ReplyOf, RequestOf, RequestSubject } from './contract';
import { NatsConnectionProvider } from './nats-connection';

const codec = JSONCodec();

function unavailable(subject: string, reason: string): ProblemException {
  return new ProblemException(503, 'DEPENDENCY_UNAVAILABLE', `The messaging request "${subject}" failed (${reason}); retry later`);
}

/** Typed request/reply and events over the contract's subjects. */
@Injectable()
export class MessageBus {
  private readonly logger = new Logger('MessageBus');

  constructor(private readonly nats: NatsConnectionProvider) {}

  /** Sends a request; an unreachable NATS, no responder or a timeout surface as 503. */
  async request<S extends RequestSubject>(subject: S, payload: RequestOf<S>, timeoutMs?: number): Promise<ReplyOf<S>> {
    if (!this.nats.isConnected()) throw unavailable(subject, 'not connected');
    const timeout = timeoutMs ?? this.nats.options.requestTimeoutMs;
    let envelope: ReplyEnvelope<ReplyOf<S>>;
    try {
      const nc = await this.nats.get();
      const reply = await nc.request(this.nats.subject(subject), codec.encode(payload), { timeout });
      envelope = codec.decode(reply.data) as ReplyEnvelope<ReplyOf<S>>;
    } catch (error) {
      const code = (error as NatsError).code ?? 'error';
      throw unavailable(subject, code === '503' ? 'no responder' : code.toLowerCase());
    }
    if (!envelope.ok) throw new ProblemException(envelope.error.status, envelope.error.code, envelope.error.detail);
    return envelope.data;
  }

  /** Answers requests on a subject; instances of a service share the load through the queue group. */
  async serve<S extends RequestSubject>(
    subject: S,
    handler: (request: RequestOf<S>) => Promise<ReplyOf<S>>,
    queue: string,
  ): Promise<Subscription> {
    const nc = await this.nats.get();
    return nc.subscribe(this.nats.subject(subject), {
      queue,
      callback: (err, msg) => {
        if (err) return this.logger.error({ err: err.message, subject }, 'subscription error');
        void this.answer(subject, handler, msg.data).then((envelope) => msg.respond(codec.encode(envelope)));
      },
    });
  }

  async publish<E extends EventSubject>(subject: E, payload: Events[E]): Promise<void> {
    if (!this.nats.isConnected()) {
      this.logger.warn({ subject }, 'event not published: NATS is disconnected');
      return;
    }
    const nc = await this.nats.get();
    nc.publish(this.nats.subject(subject), codec.encode(payload));
  }

  async subscribe<E extends EventSubject>(subject: E, handler: (event: Events[E]) => void | Promise<void>): Promise<Subscription> {
    const nc = await this.nats.get();
    return nc.subscribe(this.nats.subject(subject), {
      callback: (err, msg) => {
        if (err) return this.logger.error({ err: err.message, subject }, 'subscription error');
        Promise.resolve()
          .then(() => handler(codec.decode(msg.data) as Events[E]))
          .catch((error: Error) => this.logger.error({ err: error.message, subject }, 'event handler failed'));
      },
    });
  }

  private async answer<S extends RequestSubject>(
    subject: S,
    handler: (request: RequestOf<S>) => Promise<ReplyOf<S>>,
    data: Uint8Array,
  ): Promise<ReplyEnvelope<ReplyOf<S>>> {
    try {
      return { ok: true, data: await handler(codec.decode(data) as RequestOf<S>) };
    } catch (error) {
      if (error instanceof ProblemException) {
        return { ok: false, error: { status: error.getStatus(), code: error.code, detail: error.message } };
      }
      this.logger.error({ err: (error as Error).message, subject }, 'request handler failed');
      return { ok: false, error: { status: 500, code: 'INTERNAL_ERROR', detail: 'An unexpected error occurred' } };
    }
  }
}
