import type { Root, Type } from 'protobufjs';

// The part of OpenTelemetry's trace export request (opentelemetry-proto: collector/trace/v1, trace/v1, common/v1,
// resource/v1) a test reads, with the field numbers of the .proto files; protobuf skips the fields left out.
const OTLP_TRACE_SCHEMA = {
  nested: {
    ExportTraceServiceRequest: { fields: { resourceSpans: { rule: 'repeated', type: 'ResourceSpans', id: 1 } } },
    ResourceSpans: {
      fields: {
        resource: { type: 'Resource', id: 1 },
        scopeSpans: { rule: 'repeated', type: 'ScopeSpans', id: 2 },
      },
    },
    Resource: { fields: { attributes: { rule: 'repeated', type: 'KeyValue', id: 1 } } },
    ScopeSpans: { fields: { spans: { rule: 'repeated', type: 'Span', id: 2 } } },
    Span: {
      fields: {
        traceId: { type: 'bytes', id: 1 },
        spanId: { type: 'bytes', id: 2 },
        parentSpanId: { type: 'bytes', id: 4 },
        name: { type: 'string', id: 5 },
        kind: { type: 'int32', id: 6 },
        attributes: { rule: 'repeated', type: 'KeyValue', id: 9 },
        events: { rule: 'repeated', type: 'Event', id: 11 },
        status: { type: 'Status', id: 15 },
      },
    },
    Event: {
      fields: { name: { type: 'string', id: 2 }, attributes: { rule: 'repeated', type: 'KeyValue', id: 3 } },
    },
    Status: { fields: { message: { type: 'string', id: 2 }, code: { type: 'int32', id: 3 } } },
    KeyValue: { fields: { key: { type: 'string', id: 1 }, value: { type: 'AnyValue', id: 2 } } },
    AnyValue: {
      oneofs: { value: { oneof: ['stringValue', 'boolValue', 'intValue', 'doubleValue'] } },
      fields: {
        stringValue: { type: 'string', id: 1 },
        boolValue: { type: 'bool', id: 2 },
        intValue: { type: 'int64', id: 3 },
        doubleValue: { type: 'double', id: 4 },
      },
    },
  },
};

let request: Type | undefined;

interface DecodedSpan {
  traceId?: string;
  spanId?: string;
  parentSpanId?: string;
}
interface DecodedRequest {
  resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: DecodedSpan[] }> }>;
}

const hexOf = (base64: string | undefined): string | undefined =>
  base64 === undefined ? undefined : Buffer.from(base64, 'base64').toString('hex');

/**
 * An OTLP/HTTP protobuf export request (OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf, the exporter's default) in the
 * shape of the JSON encoding: ids in hex, 64-bit integers as strings. Throws for bytes that are no such request.
 */
export function decodeOtlpProtobuf(bytes: Uint8Array): unknown {
  if (!request) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the first protobuf export only
    const protobuf = require('protobufjs') as { Root: typeof Root };
    request = protobuf.Root.fromJSON(OTLP_TRACE_SCHEMA).lookupType('ExportTraceServiceRequest');
  }
  const decoded = request.toObject(request.decode(bytes), { longs: String, bytes: String }) as DecodedRequest;
  // protobuf's ids are bytes (base64 in toObject's strings), the JSON encoding's are hex.
  for (const resourceSpans of decoded.resourceSpans ?? []) {
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        span.traceId = hexOf(span.traceId);
        span.spanId = hexOf(span.spanId);
        span.parentSpanId = hexOf(span.parentSpanId);
      }
    }
  }
  return decoded;
}
