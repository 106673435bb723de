import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { TraceContext } from '../observability/trace-context';
import type { CompiledEndpoint } from '../routing/route-table';

/** One routed call to a described operation: everything its path through the gateway needs, in one object. */
export interface Call {
  endpoint: CompiledEndpoint;
  /** Path parameters, decoded. */
  params: Record<string, string>;
  /** The query string without its `?`. */
  query: string;
  req: IncomingMessage;
  res: ServerResponse;
  /** What every answer to this call carries: the request id, CORS, `connection: close` while shutting down. */
  headers: OutgoingHttpHeaders;
  trace: TraceContext;
}
