import type { IncomingMessage, ServerResponse } from 'node:http';
import { ROOT_CONTEXT, context as otelContext, trace, type Span, type Tracer } from '@opentelemetry/api';
import { endSpan, startHttpServerSpan } from '@restbus/infra';

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
  const span = startHttpServerSpan(tracer, req, { method, path: (req.url ?? '/').split('?')[0] });
  res.once('close', () => {
    const route = routeOf();
    if (route !== undefined) {
      span.updateName(`${method} ${route}`);
      span.setAttribute('http.route', route);
    }
    span.setAttribute('http.response.status_code', res.statusCode);
    endSpan(span, res.statusCode >= 500 ? { status: res.statusCode } : {});
  });
  return otelContext.with(trace.setSpan(ROOT_CONTEXT, span), () => answer(span));
}
