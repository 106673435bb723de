import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeOtlpProtobuf } from './decode-otlp-protobuf';
import { waitFor } from './wait-for';

/** One span as the receiver got it, flattened: its service, ids, name, kind, attributes, status and events. */
export interface ReceivedSpan {
  /** The resource's `service.name`. */
  service: string;
  traceId: string;
  spanId: string;
  /** Absent for a root span. */
  parentSpanId?: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** 0 unset, 1 ok, 2 error. */
  status: { code: number; message?: string };
  events: Array<{ name: string; attributes: Record<string, string | number | boolean> }>;
}

interface OtlpValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
}
interface OtlpKeyValue {
  key: string;
  value?: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  attributes?: OtlpKeyValue[];
  status?: { code?: number; message?: string };
  events?: Array<{ name: string; attributes?: OtlpKeyValue[] }>;
}
interface OtlpTraceRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpKeyValue[] };
    scopeSpans?: Array<{ spans?: OtlpSpan[] }>;
  }>;
}

/** An export larger than this is refused (413): the receiver holds what it gets in memory. */
const MAX_EXPORT_BYTES = 16 * 1024 * 1024;

function toAttributes(list: OtlpKeyValue[] | undefined): Record<string, string | number | boolean> {
  const attributes: Record<string, string | number | boolean> = {};
  for (const { key, value } of list ?? []) {
    if (value?.stringValue !== undefined) attributes[key] = value.stringValue;
    else if (value?.boolValue !== undefined) attributes[key] = value.boolValue;
    else if (value?.intValue !== undefined) attributes[key] = Number(value.intValue);
    else if (value?.doubleValue !== undefined) attributes[key] = value.doubleValue;
  }
  return attributes;
}

/** The spans of one OTLP/HTTP export request in the JSON encoding's shape (ids in hex). */
function readSpans(request: OtlpTraceRequest): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const service = String(toAttributes(resourceSpans.resource?.attributes)['service.name'] ?? '');
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        spans.push({
          service,
          traceId: span.traceId,
          spanId: span.spanId,
          ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
          name: span.name,
          kind: span.kind ?? 0,
          attributes: toAttributes(span.attributes),
          status: { code: span.status?.code ?? 0, ...(span.status?.message && { message: span.status.message }) },
          events: (span.events ?? []).map((event) => ({
            name: event.name,
            attributes: toAttributes(event.attributes),
          })),
        });
      }
    }
  }
  return spans;
}

/**
 * A real OTLP/HTTP trace receiver on a free port, as an OpenTelemetry Collector's `otlphttp` receiver answers the
 * SDK's exporter: `POST /v1/traces` with an export request in protobuf (OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf, the
 * default) or JSON (http/json), answered 200 with an empty response in the same encoding. It keeps every span it got,
 * for a test to read the trees they make.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Exports it refused, by what was wrong: a test that expects none checks this is empty. */
  readonly refused: string[] = [];
  /** Exports taken, and their bytes (a bench's receiver only counts them). */
  exports = 0;
  bytes = 0;

  private constructor(
    private readonly server: Server,
    /** Where the exporter sends (OTEL_EXPORTER_OTLP_ENDPOINT): the `/v1/traces` path is the exporter's to add. */
    readonly url: string,
    /** False: every export is taken and counted, none read or kept: a bench's collector. */
    private readonly keepSpans: boolean,
  ) {}

  static async start(options: { keepSpans?: boolean } = {}): Promise<OtlpReceiver> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const receiver = new OtlpReceiver(server, url, options.keepSpans !== false);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => receiver.take(req, res));
    return receiver;
  }

  /** The spans of one trace. */
  traceOf(traceId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  /** Waits until a span `matches` has come, and resolves with the first. */
  async waitForSpan(matches: (span: ReceivedSpan) => boolean, what: string): Promise<ReceivedSpan> {
    await waitFor(() => this.spans.some(matches), { what });
    return this.spans.find(matches)!;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private take(req: IncomingMessage, res: ServerResponse): void {
    const refuse = (status: number, reason: string): void => {
      this.refused.push(reason);
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ message: reason }));
      req.resume();
    };
    if (req.method !== 'POST' || req.url !== '/v1/traces') return refuse(404, `${req.method} ${req.url}`);
    const type = req.headers['content-type'] ?? '';
    const json = type.startsWith('application/json');
    if (!json && !type.startsWith('application/x-protobuf')) return refuse(415, `content-type ${type}`);
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_EXPORT_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > MAX_EXPORT_BYTES) return refuse(413, `an export of ${size} bytes`);
      this.exports++;
      this.bytes += size;
      if (this.keepSpans) {
        try {
          const body = Buffer.concat(chunks);
          const request = json ? JSON.parse(body.toString('utf8')) : decodeOtlpProtobuf(body);
          this.spans.push(...readSpans(request as OtlpTraceRequest));
        } catch (err) {
          return refuse(400, `not an export request: ${String(err)}`);
        }
      }
      // An empty ExportTraceServiceResponse: `{}` in JSON, no bytes in protobuf.
      res.writeHead(200, { 'content-type': type }).end(json ? '{}' : '');
    });
  }
}
