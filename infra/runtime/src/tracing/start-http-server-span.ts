import type { IncomingMessage } from 'node:http';
import {
  ROOT_CONTEXT,
  SpanKind,
  defaultTextMapGetter,
  propagation,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';

/**
 * The context an HTTP call's headers carry (`traceparent`, `tracestate`, `baggage`, or what OTEL_PROPAGATORS reads).
 * A call with none of the propagators' headers is a root: the propagators are not run for it.
 */
function extractHttpContext(req: IncomingMessage): Context {
  for (const field of propagation.fields()) {
    if (req.headers[field] !== undefined) return propagation.extract(ROOT_CONTEXT, req.headers, defaultTextMapGetter);
  }
  return ROOT_CONTEXT;
}

/**
 * The server span of an HTTP call (HTTP semantic conventions), a child of the span the caller's `traceparent` names:
 * `GET /persons/{personId}` once the route is known, the method alone before. The gateway's and the mock server's.
 */
export function startHttpServerSpan(
  tracer: Tracer,
  req: IncomingMessage,
  call: { method: string; path: string; route?: string },
): Span {
  // Written field by field: spreads of optional fields made this literal the costliest line of a traced call.
  const attributes: Attributes = { 'http.request.method': call.method, 'url.path': call.path, 'url.scheme': 'http' };
  if (call.route !== undefined) attributes['http.route'] = call.route;
  const client = req.socket.remoteAddress;
  if (client !== undefined) attributes['client.address'] = client;
  const agent = req.headers['user-agent'];
  if (agent !== undefined) attributes['user_agent.original'] = agent;
  return tracer.startSpan(
    call.route === undefined ? call.method : `${call.method} ${call.route}`,
    { kind: SpanKind.SERVER, attributes },
    extractHttpContext(req),
  );
}
