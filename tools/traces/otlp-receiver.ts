/**
 * A minimal OTLP/HTTP receiver for traces (JSON encoding, what the services' exporter sends): it
 * takes `POST /v1/traces`, keeps the spans in memory and appends them, one JSON object a line, to a
 * file. `GET /v1/traces/recent?limit=N` and `GET /v1/traces/<traceId>` answer the recent traces and
 * the spans of one from a bounded ring (recent-spans.ts), for the console's Traces page. Used by
 * `npm start -- --traces`, the tracing e2e test and `bench:load -- --traces`. Why not a real
 * collector: the OpenTelemetry Collector and Jaeger are Go programs that neither npm nor Debian
 * ship, and a downloaded binary is not an install step this project can rely on; docker-compose
 * runs both (deploy/otel-collector.yaml).
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { MAX_RECENT_TRACES, RECENT_SPANS, RecentSpans } from './recent-spans';

/** One span as received, flattened: its resource's service and instance, attributes as plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP's span kind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  service: string;
  instance?: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
  events: { name: string; attributes: Record<string, unknown> }[];
  /** 2 for an error. */
  statusCode?: number;
}

export interface OtlpReceiver {
  /** The base URL to set as `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  url: string;
  spans: ReceivedSpan[];
  /** Spans received so far (kept or not). */
  received: number;
  /** Requests the receiver refused (not JSON, too large). */
  refused: number;
  close(): Promise<void>;
}

export interface OtlpReceiverOptions {
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Appends each span as a JSON line. */
  file?: string;
  /** Keep the spans in `spans` (the default); a long-running receiver that only writes the file turns it off. */
  keep?: boolean;
  /** How many of the last spans to keep for `GET /v1/traces/recent` and `/v1/traces/<traceId>` (20,000 by default). */
  recentSpans?: number;
}

const MAX_BODY_BYTES = 32 * 1024 * 1024;

type AnyValue = {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
  kvlistValue?: { values?: KeyValue[] };
  bytesValue?: string;
};
type KeyValue = { key: string; value?: AnyValue };

function valueOf(value: AnyValue | undefined): unknown {
  if (!value) return null;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(valueOf);
  if (value.kvlistValue) return attributesOf(value.kvlistValue.values);
  return value.bytesValue ?? null;
}

function attributesOf(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, valueOf(value)]));
}

interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind?: number;
        startTimeUnixNano: string;
        endTimeUnixNano: string;
        attributes?: KeyValue[];
        links?: { traceId: string; spanId: string }[];
        events?: { name: string; attributes?: KeyValue[] }[];
        status?: { code?: number };
      }[];
    }[];
  }[];
}

/** The spans of one OTLP/JSON export request, flattened. */
export function spansOf(request: ExportRequest): ReceivedSpan[] {
  return (request.resourceSpans ?? []).flatMap((resourceSpans) => {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
        name: span.name,
        kind: span.kind ?? 0,
        service: String(resource['service.name'] ?? 'unknown'),
        ...(resource['service.instance.id'] ? { instance: String(resource['service.instance.id']) } : {}),
        startTimeUnixNano: String(span.startTimeUnixNano),
        endTimeUnixNano: String(span.endTimeUnixNano),
        attributes: attributesOf(span.attributes),
        resource,
        links: (span.links ?? []).map(({ traceId, spanId }) => ({ traceId, spanId })),
        events: (span.events ?? []).map((event) => ({ name: event.name, attributes: attributesOf(event.attributes) })),
        ...(span.status?.code ? { statusCode: span.status.code } : {}),
      })),
    );
  });
}

function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on('end', () => resolve(size <= MAX_BODY_BYTES ? Buffer.concat(chunks) : undefined));
    request.on('error', reject);
  });
}

type Answer = { status: number; body: object; headers?: Record<string, string> };

/** `GET /v1/traces/recent?limit=N` (at most 200, 50 by default) and `GET /v1/traces/<traceId>`. */
export function queryAnswer(method: string | undefined, url: string, recent: RecentSpans<ReceivedSpan>): Answer {
  const { pathname, searchParams } = new URL(url, 'http://receiver');
  const traceId = /^\/v1\/traces\/([0-9a-f]{32})$/i.exec(pathname)?.[1];
  if (pathname !== '/v1/traces/recent' && !traceId) return { status: 404, body: { message: 'not found' } };
  if (method !== 'GET') return { status: 405, body: { message: 'only GET' }, headers: { allow: 'GET' } };
  if (traceId) {
    const spans = recent.trace(traceId.toLowerCase());
    return spans.length
      ? { status: 200, body: { traceId, spans } }
      : { status: 404, body: { message: 'no such trace among the recent spans' } };
  }
  const limit = Number(searchParams.get('limit') ?? 50);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_RECENT_TRACES)
    return { status: 400, body: { message: `limit must be an integer from 1 to ${MAX_RECENT_TRACES}` } };
  return { status: 200, body: { traces: recent.recent(limit) } };
}

export async function startOtlpReceiver(options: OtlpReceiverOptions = {}): Promise<OtlpReceiver> {
  const receiver = { spans: [] as ReceivedSpan[], refused: 0, received: 0 };
  const recent = new RecentSpans<ReceivedSpan>(options.recentSpans ?? RECENT_SPANS);
  if (options.file) mkdirSync(dirname(options.file), { recursive: true });
  const answer = (response: ServerResponse, status: number, body: object, headers: Record<string, string> = {}) => {
    response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers }).end(JSON.stringify(body));
  };
  const server = createServer((request, response) => {
    void (async () => {
      if (request.url?.split('?')[0] !== '/v1/traces') {
        const { status, body, headers } = queryAnswer(request.method, request.url ?? '/', recent);
        return answer(response, status, body, headers);
      }
      if (request.method !== 'POST') return answer(response, 405, { message: 'only POST /v1/traces' }, { allow: 'POST' });
      if (!String(request.headers['content-type']).startsWith('application/json')) {
        receiver.refused++;
        return answer(response, 415, { message: 'only the JSON encoding of OTLP/HTTP' });
      }
      const raw = await readBody(request);
      if (!raw) {
        receiver.refused++;
        return answer(response, 413, { message: 'too large' });
      }
      let spans: ReceivedSpan[];
      try {
        const body = request.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
        spans = spansOf(JSON.parse(body.toString('utf8')) as ExportRequest);
      } catch {
        receiver.refused++;
        return answer(response, 400, { message: 'not an OTLP/JSON export request' });
      }
      receiver.received += spans.length;
      if (options.keep !== false) receiver.spans.push(...spans);
      recent.add(spans);
      if (options.file && spans.length) appendFileSync(options.file, spans.map((span) => JSON.stringify(span)).join('\n') + '\n');
      answer(response, 200, {});
    })().catch(() => answer(response, 500, { message: 'failed' }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host ?? '127.0.0.1';
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    get spans() {
      return receiver.spans;
    },
    get received() {
      return receiver.received;
    },
    get refused() {
      return receiver.refused;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
