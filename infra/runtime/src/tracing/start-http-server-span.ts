import type { IncomingMessage } from 'node:http';
import { ROOT_CONTEXT, SpanKind, defaultTextMapGetter, propagation, type Span, type Tracer } from '@opentelemetry/api';

/**
 * The server span of an HTTP call (HTTP semantic conventions), a child of the span the caller's `traceparent` names:
 * `GET /persons/{personId}` once the route is known, the method alone before. The gateway's and the mock server's.
 */
export function startHttpServerSpan(
  tracer: Tracer,
  req: IncomingMessage,
  call: { method: string; path: string; route?: string },
): Span {
  const parent = propagation.extract(ROOT_CONTEXT, req.headers, defaultTextMapGetter);
  return tracer.startSpan(
    call.route === undefined ? call.method : `${call.method} ${call.route}`,
    {
      kind: SpanKind.SERVER,
      attributes: {
        'http.request.method': call.method,
        ...(call.route !== undefined && { 'http.route': call.route }),
        'url.path': call.path,
        'url.scheme': 'http',
        ...(req.socket.remoteAddress !== undefined && { 'client.address': req.socket.remoteAddress }),
        ...(req.headers['user-agent'] !== undefined && { 'user_agent.original': req.headers['user-agent'] }),
      },
    },
    parent,
  );
}
