import {
  ROOT_CONTEXT,
  SpanStatusCode,
  propagation,
  trace,
  type Context,
  type Span,
  type TextMapGetter,
  type TextMapSetter,
  type Tracer,
} from '@opentelemetry/api';
import type { MsgHdrs } from 'nats';

/** The instrumentation scope of every span restbus makes. */
const TRACER_NAME = 'restbus';

let tracer: Tracer | undefined;

/**
 * The tracer spans are made with while tracing is on (startTracing registered an SDK), undefined while it is off:
 * each place that would make a span asks first, so tracing off costs a branch, not a no-op span per call.
 */
export function activeTracer(): Tracer | undefined {
  return tracer;
}

/** Called by startTracing once its SDK is registered (and by its shutdown): the tracer spans are made with. */
export function setActiveTracer(on: boolean): void {
  tracer = on ? trace.getTracer(TRACER_NAME) : undefined;
}

const natsGetter: TextMapGetter<MsgHdrs | undefined> = {
  get: (headers, key) => (headers?.has(key) ? headers.get(key) : undefined),
  keys: (headers) => (headers ? headers.keys() : []),
};

const natsSetter: TextMapSetter<MsgHdrs> = {
  set: (headers, key, value) => headers.set(key, value),
};

/** The trace a message's headers carry (`traceparent`, `tracestate`), as the parent of what handles it. */
export function extractNatsContext(headers: MsgHdrs | undefined): Context {
  return propagation.extract(ROOT_CONTEXT, headers, natsGetter);
}

/** Writes the span of `context` into a message's headers, so that who handles it continues the trace. */
export function injectNatsContext(context: Context, headers: MsgHdrs): void {
  propagation.inject(context, headers, natsSetter);
}

/**
 * Ends a span with the outcome of what it covered: an HTTP-like status (5xx is an error, as a server span's), and
 * the stable restbus code of a failure, which travels as `error.type` (semantic conventions) so that a trace viewer
 * groups failures by it.
 */
export function endSpan(span: Span, outcome: { status?: number; code?: string; message?: string } = {}): void {
  const { status, code, message } = outcome;
  if (status !== undefined) span.setAttribute('restbus.reply.status', status);
  if (code !== undefined) span.setAttribute('error.type', code);
  // A 4xx is the client's mistake, recorded by its code; a span is an error for a 5xx or a failure without a status.
  if ((status !== undefined && status >= 500) || (status === undefined && code !== undefined)) {
    span.setStatus({ code: SpanStatusCode.ERROR, ...(message !== undefined && { message }) });
  }
  span.end();
}

/** What traceLogFields gives while no span is active: mergeTraceLogFields leaves the line as it is for it. */
export const NO_TRACE_FIELDS: Record<string, string> = Object.freeze({});

/**
 * The fields a log line gets while a span is active (pino's mixin): `trace_id`, `span_id` and `trace_flags`, the names
 * OpenTelemetry's log correlation uses, so that a log search and a trace viewer find each other's lines.
 */
export function traceLogFields(): Record<string, string> {
  if (!tracer) return NO_TRACE_FIELDS;
  const span = trace.getActiveSpan();
  if (!span) return NO_TRACE_FIELDS;
  const { traceId, spanId, traceFlags } = span.spanContext();
  return { trace_id: traceId, span_id: spanId, trace_flags: `0${traceFlags.toString(16)}`.slice(-2) };
}

/**
 * pino's mixinMergeStrategy for traceLogFields: the line's own fields win, and a line written with no span active is
 * not copied at all (pino's default copies every line into the mixin's object, an allocation per line for nothing).
 */
export function mergeTraceLogFields(line: object, fields: object): object {
  return fields === NO_TRACE_FIELDS ? line : Object.assign(fields, line);
}
