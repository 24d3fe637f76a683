import { Injectable, Logger } from '@nestjs/common';
import { JSONCodec, NatsError, Subscription } from 'nats';
import { ProblemException } from '@lib/core';
import { Metrics } from '@lib/metrics';
import { inSpan, recordProblem, setSpanAttributes, tracingActive } from '@lib/tracing';
import { EVENT_PAYLOADS, Events, EventSubject, ReplyEnvelope, ReplyOf, REQUEST_PAYLOADS, RequestOf, RequestSubject } from './contract';
import { NatsConnectionProvider } from './nats-connection';
import { decodePayload, InvalidPayloadError, validPayload } from './payload';
import { messagingAttributes, traceCarrierOf, traceHeaders } from './trace-headers';

const codec = JSONCodec();

function unavailable(subject: string, reason: string): ProblemException {
  return new ProblemException(503, 'DEPENDENCY_UNAVAILABLE', `The messaging request "${subject}" failed (${reason}); retry later`);
}

function isEnvelope(value: unknown): value is ReplyEnvelope<unknown> {
  if (value === null || typeof value !== 'object') return false;
  const envelope = value as { ok?: unknown; error?: { status?: unknown; code?: unknown; detail?: unknown } };
  if (envelope.ok === true) return true;
  return (
    envelope.ok === false &&
    typeof envelope.error?.status === 'number' &&
    typeof envelope.error.code === 'string' &&
    typeof envelope.error.detail === 'string'
  );
}

/**
 * Typed request/reply and events over the contract's subjects; every received payload is validated
 * against its class. With tracing on, each send and each handling is a span, and the trace context
 * travels in the message headers (trace-headers.ts).
 */
@Injectable()
export class MessageBus {
  private readonly logger = new Logger('MessageBus');

  constructor(
    private readonly nats: NatsConnectionProvider,
    private readonly metrics: Metrics,
  ) {}

  /**
   * Sends a request; an unreachable NATS, no responder or a timeout surface as 503, a reply that
   * breaks the contract as 502. Timed in `corelite_nats_request_duration_seconds` (a problem the
   * other service answered is a reply, not a failure).
   */
  request<S extends RequestSubject>(subject: S, payload: RequestOf<S>, timeoutMs?: number): Promise<ReplyOf<S>> {
    return inSpan(`send ${subject}`, { kind: 'client', attributes: messagingAttributes(subject, 'send', payload) }, () =>
      this.send(subject, payload, timeoutMs),
    );
  }

  private async send<S extends RequestSubject>(subject: S, payload: RequestOf<S>, timeoutMs?: number): Promise<ReplyOf<S>> {
    const done = this.metrics.natsRequest(subject);
    if (!this.nats.isConnected()) {
      done('not_connected');
      throw unavailable(subject, 'not connected');
    }
    const timeout = timeoutMs ?? this.nats.options.requestTimeoutMs;
    let reply: Uint8Array;
    try {
      const nc = await this.nats.get();
      const headers = traceHeaders();
      reply = (await nc.request(this.nats.subject(subject), codec.encode(payload), { timeout, ...(headers ? { headers } : {}) })).data;
    } catch (error) {
      const code = (error as NatsError).code ?? 'error';
      const reason = code === '503' ? 'no responder' : code.toLowerCase();
      done(reason.replace(/\W+/g, '_'));
      throw unavailable(subject, reason);
    }
    try {
      const envelope: unknown = JSON.parse(new TextDecoder().decode(reply));
      if (!isEnvelope(envelope)) throw new InvalidPayloadError('the reply is not an envelope');
      const data = envelope.ok ? validPayload(REQUEST_PAYLOADS[subject][1] as new () => ReplyOf<S>, envelope.data) : undefined;
      done();
      if (!envelope.ok) throw new ProblemException(envelope.error.status, envelope.error.code, envelope.error.detail);
      return data as ReplyOf<S>;
    } catch (error) {
      if (!(error instanceof InvalidPayloadError) && !(error instanceof SyntaxError)) throw error;
      done('invalid_reply');
      this.logger.error({ err: error, subject }, 'a reply breaks the messaging contract');
      throw new ProblemException(502, 'DEPENDENCY_REPLY_INVALID', `The reply to "${subject}" breaks the messaging contract`);
    }
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
        if (err) return this.logger.error({ err, subject }, 'subscription error');
        const answered = tracingActive()
          ? inSpan(
              `process ${subject}`,
              { kind: 'server', parent: traceCarrierOf(msg.headers), attributes: messagingAttributes(subject, 'process', undefined) },
              () => this.answer(subject, handler, msg.data),
            )
          : this.answer(subject, handler, msg.data);
        void answered.then((envelope) => msg.respond(codec.encode(envelope)));
      },
    });
  }

  publish<E extends EventSubject>(subject: E, payload: Events[E]): Promise<void> {
    return inSpan(`send ${subject}`, { kind: 'producer', attributes: messagingAttributes(subject, 'send', payload) }, () =>
      this.emit(subject, payload),
    );
  }

  private async emit<E extends EventSubject>(subject: E, payload: Events[E]): Promise<void> {
    if (!this.nats.isConnected()) {
      this.logger.warn({ subject }, 'event not published: NATS is disconnected');
      return;
    }
    const nc = await this.nats.get();
    const headers = traceHeaders();
    nc.publish(this.nats.subject(subject), codec.encode(payload), headers ? { headers } : undefined);
  }

  /** Delivers each valid event to `handler`; an event that breaks the contract is logged and dropped. */
  async subscribe<E extends EventSubject>(subject: E, handler: (event: Events[E]) => void | Promise<void>): Promise<Subscription> {
    const nc = await this.nats.get();
    return nc.subscribe(this.nats.subject(subject), {
      callback: (err, msg) => {
        if (err) return this.logger.error({ err, subject }, 'subscription error');
        let event: Events[E];
        try {
          event = decodePayload(EVENT_PAYLOADS[subject] as new () => Events[E], msg.data);
        } catch (error) {
          if (!(error instanceof InvalidPayloadError)) throw error;
          return this.logger.warn({ subject, reason: error.message }, 'event dropped: it breaks the messaging contract');
        }
        const handled = () => Promise.resolve().then(() => handler(event));
        const traced = tracingActive()
          ? inSpan(
              `process ${subject}`,
              { kind: 'consumer', parent: traceCarrierOf(msg.headers), attributes: messagingAttributes(subject, 'process', event) },
              handled,
            )
          : handled();
        traced.catch((error: unknown) => this.logger.error({ err: error, subject }, 'event handler failed'));
      },
    });
  }

  private async answer<S extends RequestSubject>(
    subject: S,
    handler: (request: RequestOf<S>) => Promise<ReplyOf<S>>,
    data: Uint8Array,
  ): Promise<ReplyEnvelope<ReplyOf<S>>> {
    try {
      const request = decodePayload(REQUEST_PAYLOADS[subject][0] as new () => RequestOf<S>, data);
      setSpanAttributes({ 'corelite.tenant.id': request.tenantId });
      return { ok: true, data: await handler(request) };
    } catch (error) {
      const refusal = this.refusal(subject, error);
      recordProblem(refusal.error.status, refusal.error.code);
      return refusal;
    }
  }

  private refusal(subject: string, error: unknown): Extract<ReplyEnvelope<never>, { ok: false }> {
    if (error instanceof InvalidPayloadError) {
      this.logger.warn({ subject, reason: error.message }, 'request refused: it breaks the messaging contract');
      return {
        ok: false,
        error: { status: 400, code: 'INVALID_MESSAGE', detail: `The request breaks the contract of "${subject}": ${error.message}` },
      };
    }
    if (error instanceof ProblemException) {
      return { ok: false, error: { status: error.getStatus(), code: error.code, detail: error.message } };
    }
    this.logger.error({ err: error, subject }, 'request handler failed');
    return { ok: false, error: { status: 500, code: 'INTERNAL_ERROR', detail: 'An unexpected error occurred' } };
  }
}
