import { randomFillSync, randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Context, Span } from '@opentelemetry/api';
import type { ErrorCode } from '@restbus/infra';

export interface TraceContext {
  /** W3C `traceparent`: the caller's when valid, otherwise a new one. */
  traceparent: string;
  traceId: string;
  /** `x-request-id`: the caller's when it is a sane token, otherwise a new UUID. */
  requestId: string;
  /** The call's server span while tracing is on (startServerSpan): its trace id and traceparent are the span's. */
  span?: Span;
  /** The OpenTelemetry context whose span is the server span: the parent of the call's other spans, made once. */
  callContext?: Context;
  /** The code of the failure the call was answered with, for its span (recordCallFailure). */
  failure?: ErrorCode;
}

const TRACEPARENT = /^[\da-f]{2}-([\da-f]{32})-[\da-f]{16}-[\da-f]{2}$/;
const REQUEST_ID = /^[\w.:-]{1,128}$/;
const INVALID_TRACE = '00000000000000000000000000000000';

// Random bytes drawn in batches: one call into the CSPRNG per 170 new trace contexts instead of one each.
const pool = Buffer.alloc(4096);
let used = pool.length;

function randomHex(bytes: number): string {
  if (used + bytes > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  used += bytes;
  return pool.toString('hex', used - bytes, used);
}

/** Reads or creates the trace context of a call; it travels to the service as NATS headers and into every log line. */
export function toTraceContext(headers: IncomingHttpHeaders): TraceContext {
  const incoming = headers.traceparent;
  const match = typeof incoming === 'string' ? TRACEPARENT.exec(incoming) : null;
  let traceparent: string;
  let traceId: string;
  if (match && match[1] !== INVALID_TRACE) {
    traceparent = match.input;
    traceId = match[1];
  } else {
    traceId = randomHex(16);
    traceparent = `00-${traceId}-${randomHex(8)}-01`;
  }
  const given = headers['x-request-id'];
  const requestId = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
  return { traceparent, traceId, requestId };
}

/** What a log line written for a call says of it: its ids, and its server span's while tracing is on. */
export interface CallLogFields {
  reqId: string;
  traceId: string;
  trace_id?: string;
  span_id?: string;
}

/**
 * The ids a call's log lines carry: `reqId`, `traceId` and, while tracing is on, `trace_id` and `span_id` of its
 * server span (the names of OpenTelemetry's log correlation). Named on each line rather than read from an active
 * span: the gateway keeps no span active across awaits, which would cost every promise of the process a hook.
 */
export function describeTrace(trace: TraceContext): CallLogFields {
  return nameSpan({ reqId: trace.requestId, traceId: trace.traceId }, trace);
}

/** Adds the ids of the call's server span to a log line's fields, while tracing is on; returns the same fields. */
export function nameSpan<T extends Partial<CallLogFields>>(fields: T, trace: TraceContext): T {
  if (trace.span) {
    fields.trace_id = trace.traceId;
    fields.span_id = trace.span.spanContext().spanId;
  }
  return fields;
}
