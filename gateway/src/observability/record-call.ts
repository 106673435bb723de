import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '@restbus/infra';
import type { ApiOperation } from '@restbus/openapi';
import { endServerSpan } from './call-spans';
import type { GatewayMetrics } from './create-metrics';
import { labelStatus, listDeclaredStatuses } from './label-call';
import { nameSpan, type CallLogFields, type TraceContext } from './trace-context';

/** What the log line and the metrics say about one answered request. */
export interface CallRecord {
  req: IncomingMessage;
  res: ServerResponse;
  path: string;
  /** The operation's URI template, `static` or `unmatched`: bounded, for the metrics' labels. */
  route: string;
  /** The method as the metrics count it (labelMethod): one the route serves, or `other`. */
  method: string;
  /** The operation that answers: its declared statuses are counted as themselves (labelStatus). */
  operation?: ApiOperation;
  topic?: string;
  trace: TraceContext;
  /** performance.now() when the request came. */
  started: number;
}

/** The line logged for each answered request. */
interface RequestLine extends CallLogFields {
  method?: string;
  path: string;
  status: number;
  ms: number;
  topic?: string;
}

export interface CallRecorder {
  /** Counts the request in flight until its response closes, then observes and logs it. */
  track(record: CallRecord): void;
  inFlight(): number;
}

export function createCallRecorder(deps: { metrics: GatewayMetrics; logger: Logger }): CallRecorder {
  const { metrics, logger } = deps;
  let inFlight = 0;

  function finish({ req, res, path, route, method, operation, topic, trace, started }: CallRecord): void {
    inFlight--;
    metrics.inFlight.dec();
    const ms = performance.now() - started;
    metrics.observe(route, method, labelStatus(res.statusCode, listDeclaredStatuses(operation)), ms / 1000);
    endServerSpan(trace, res.statusCode);
    // One literal of one shape, the span's ids added after it: a spread here made every request line cost 9 µs.
    const line: RequestLine = {
      reqId: trace.requestId,
      traceId: trace.traceId,
      method: req.method,
      path,
      status: res.statusCode,
      ms: Math.round(ms * 1000) / 1000,
      topic,
    };
    logger.info(nameSpan(line, trace), 'request');
  }

  return {
    track(record) {
      inFlight++;
      metrics.inFlight.inc();
      record.res.once('close', () => finish(record));
    },
    inFlight: () => inFlight,
  };
}
