import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  ROOT_CONTEXT,
  SpanKind,
  context as otelContext,
  defaultTextMapGetter,
  propagation,
  trace,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { endSpan } from '@restbus/infra';

/**
 * The server span of one answer of the mock server (HTTP semantic conventions), a child of the span the caller's
 * `traceparent` names, active while the answer is made (an implementation function's spans are its children, the
 * log lines carry its ids) and ended when the response closes, named after the service route once one is found.
 */
export function traceMockAnswer(
  tracer: Tracer,
  req: IncomingMessage,
  res: ServerResponse,
  answer: (span: Span) => Promise<void>,
  routeOf: () => string | undefined,
): Promise<void> {
  const method = req.method ?? 'GET';
  const parent = propagation.extract(ROOT_CONTEXT, req.headers, defaultTextMapGetter);
  const span = tracer.startSpan(
    method,
    {
      kind: SpanKind.SERVER,
      attributes: {
        'http.request.method': method,
        'url.path': (req.url ?? '/').split('?')[0],
        'url.scheme': 'http',
        ...(req.socket.remoteAddress !== undefined && { 'client.address': req.socket.remoteAddress }),
      },
    },
    parent,
  );
  res.once('close', () => {
    const route = routeOf();
    if (route !== undefined) {
      span.updateName(`${method} ${route}`);
      span.setAttribute('http.route', route);
    }
    span.setAttribute('http.response.status_code', res.statusCode);
    endSpan(span, res.statusCode >= 500 ? { status: res.statusCode } : {});
  });
  return otelContext.with(trace.setSpan(parent, span), () => answer(span));
}
