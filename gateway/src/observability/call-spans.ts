import type { IncomingMessage } from 'node:http';
import {
  ROOT_CONTEXT,
  SpanKind,
  trace as otelTrace,
  type Attributes,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import {
  activeTracer,
  endSpan,
  injectNatsContext,
  isRestbusError,
  startHttpServerSpan,
  type ErrorCode,
} from '@restbus/infra';
import type { MsgHdrs } from 'nats';
import type { TraceContext } from './trace-context';

/**
 * Opens the server span of an HTTP call (`GET /persons/{personId}`, HTTP semantic conventions), a child of the span
 * the caller's `traceparent` names, and makes the call's trace context follow it: the trace id of the log lines and
 * of the messages sent for it is the span's.
 */
export function startServerSpan(
  tracer: Tracer,
  trace: TraceContext,
  req: IncomingMessage,
  call: { method: string; route?: string; path: string },
): Span {
  const span = startHttpServerSpan(tracer, req, call);
  const { traceId, spanId, traceFlags } = span.spanContext();
  trace.span = span;
  trace.callContext = otelTrace.setSpan(ROOT_CONTEXT, span);
  trace.traceId = traceId;
  trace.traceparent = `00-${traceId}-${spanId}-0${traceFlags & 1}`;
  return span;
}

/** Ends the server span with the answer's status; a failure's code was recorded where it was answered. */
export function endServerSpan(trace: TraceContext, status: number): void {
  const span = trace.span;
  if (!span) return;
  span.setAttribute('http.response.status_code', status);
  endSpan(span, status >= 500 ? { status, code: trace.failure ?? String(status) } : {});
}

/** Keeps the stable code of the failure a call was answered with: its server span's `error.type`. */
export function recordCallFailure(trace: TraceContext, code: ErrorCode): void {
  if (!trace.span) return;
  trace.failure = code;
  trace.span.setAttribute('error.type', code);
}

/**
 * Writes a call's trace into its NATS message's headers, as the parent of the service's span: the client span of the
 * request (`send easer.get_/persons`, the messaging conventions with NATS as the system) while the call is recorded,
 * which it returns. A call tracing does not record (not sampled) gets no send span: every sampler restbus takes would
 * leave its children unrecorded too (parent-based ones follow the parent, the others decide on the trace id or not at
 * all), so the message carries the server span's context as it is, sampled flag off. Tracing off, the call's own
 * `traceparent` travels, as it always did.
 */
export function startSendSpan(
  trace: TraceContext,
  headers: MsgHdrs,
  call: { subject: string; operation: string; bytes: number },
): Span | undefined {
  const parentContext = trace.callContext;
  const tracer = activeTracer();
  if (!parentContext || !tracer) {
    headers.set('traceparent', trace.traceparent);
    return undefined;
  }
  if (!trace.span?.isRecording()) {
    injectNatsContext(parentContext, headers);
    return undefined;
  }
  const span = tracer.startSpan(
    `send ${call.subject}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'messaging.system': 'nats',
        'messaging.destination.name': call.subject,
        'messaging.operation.type': 'send',
        'messaging.operation.name': 'request',
        'messaging.message.body.size': call.bytes,
        'rpc.method': call.operation,
      },
    },
    parentContext,
  );
  injectNatsContext(otelTrace.setSpan(parentContext, span), headers);
  return span;
}

/** Ends a send span with the reply's status, or the failure's code. */
export function endSendSpan(span: Span | undefined, outcome: { status?: number; err?: unknown }): void {
  if (!span) return;
  const code = outcome.err === undefined ? undefined : isRestbusError(outcome.err) ? outcome.err.code : 'INTERNAL';
  endSpan(span, { status: outcome.status, code });
}

/**
 * Runs one step of a call (the request's validation, the reply's check) as an internal span of it, while tracing is
 * on; a step that throws marks its span with the code.
 */
export async function traceStep<T>(
  trace: TraceContext,
  name: string,
  step: () => Promise<T> | T,
  attributes?: Attributes,
): Promise<T> {
  const parentContext = trace.callContext;
  const tracer = activeTracer();
  // An unrecorded call's steps would be unrecorded too (see startSendSpan).
  if (!parentContext || !tracer || !trace.span?.isRecording()) return step();
  const span = tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes }, parentContext);
  try {
    const result = await step();
    span.end();
    return result;
  } catch (err) {
    endSpan(span, { code: isRestbusError(err) ? err.code : 'INTERNAL' });
    throw err;
  }
}
